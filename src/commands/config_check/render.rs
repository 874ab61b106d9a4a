//! How `config show --check` shows its report: a table of checks per target, titled
//! with the target, the others checked with it and the sections that use it.

use super::checks::CheckReport;
use crate::report::table::{Cell, Style};
use crate::report::TableView;
use crate::term::Shown;

impl TableView for CheckReport {
    fn tables(&self, style: &Style) -> Vec<Shown> {
        self.targets
            .iter()
            .map(|t| {
                let mut table = style.table(&["WHAT", "STATUS", "DETAIL"]);
                for c in &t.checks {
                    table.add_row(vec![
                        Cell::new(&c.what),
                        style.severity_cell(c.status),
                        Cell::new(Shown::from(&c.detail)),
                    ]);
                }
                let mut place = crate::shown!(
                    "{} target {} ({})",
                    t.kind,
                    t.name,
                    t.address.as_deref().unwrap_or("unusable")
                );
                if !t.also.is_empty() {
                    // Each target named once, its address only where it differs.
                    let others: Vec<Shown> = t
                        .also
                        .iter()
                        .map(|other| match &other.address {
                            Some(address) if Some(address) != t.address.as_ref() => {
                                crate::shown!("{} ({})", other.name, address)
                            }
                            _ => crate::shown!("{}", other.name),
                        })
                        .collect();
                    place = crate::shown!(
                        "{} and {} (the same {}, checked once)",
                        place,
                        Shown::join(others, ", "),
                        match t.kind {
                            "kafka" => "cluster and client settings",
                            _ => "server and role",
                        }
                    );
                }
                let title = match t.used_by.is_empty() {
                    true => crate::shown!("{}:", place),
                    false => crate::shown!("{}, used by {}:", place, t.used_by.join(", ")),
                };
                let lines = crate::report::layout::wrap(title.as_str(), usize::from(style.width))
                    .join("\n");
                // Escaped text re-broken at its spaces: still escaped.
                #[allow(clippy::disallowed_methods)]
                let mut out = Shown::__from_format(format_args!("{lines}\n"));
                out.push(&table.render());
                out
            })
            .collect()
    }
}
