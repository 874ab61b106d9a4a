//! How each server's SQL spells what the saga reads need: names quoted, text literals that
//! show as themselves whatever they hold, a column's age and "older than" against the
//! server's own clock (a condition an index on the column can serve).

use super::TimeKind;
use crate::appdb::Dialect;
use std::time::Duration;

#[derive(Debug, Clone, Copy)]
pub(crate) struct Spell(pub Dialect);

impl Spell {
    /// `schema.table` or `table`, each part quoted.
    pub fn table(&self, name: &str) -> String {
        match self.0 {
            Dialect::Postgres => crate::quote::qualified(name),
            Dialect::Mysql => crate::mysql::tables::qualified(name),
        }
    }

    /// A column, quoted, after an alias (`s.`) when one is given.
    pub fn col(&self, alias: &str, name: &str) -> String {
        let quoted = match self.0 {
            Dialect::Postgres => crate::quote::sql_identifier(name),
            Dialect::Mysql => crate::mysql::tables::identifier(name),
        };
        match alias {
            "" => quoted,
            a => format!("{a}.{quoted}"),
        }
    }

    /// A text literal of `value`.
    pub fn lit(&self, value: &str) -> String {
        match self.0 {
            Dialect::Postgres => crate::quote::sql_literal(value),
            Dialect::Mysql => crate::appdb::mysql_char(value),
        }
    }

    /// Text literals separated by `, ` (for `IN (…)`).
    pub fn list(&self, values: &[String]) -> String {
        values
            .iter()
            .map(|v| self.lit(v))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// `expr IN (values)`, or a condition never true when there are none.
    pub fn is_in(&self, expr: &str, values: &[String]) -> String {
        match values.is_empty() {
            true => "1 = 0".into(),
            false => format!("{expr} IN ({})", self.list(values)),
        }
    }

    /// An expression's value as text.
    pub fn text(&self, expr: &str) -> String {
        match self.0 {
            Dialect::Postgres => format!("({expr})::text"),
            Dialect::Mysql => format!("CAST({expr} AS CHAR)"),
        }
    }

    /// The server's time now, as a column of this kind is compared with it.
    pub fn now(&self, kind: TimeKind) -> &'static str {
        match (self.0, kind) {
            (Dialect::Postgres, TimeKind::Zoned) => "now()",
            (Dialect::Postgres, TimeKind::Local) => "localtimestamp",
            (Dialect::Mysql, _) => "NOW(6)",
        }
    }

    /// How long ago a time was, in seconds (a number).
    pub fn age(&self, expr: &str, kind: TimeKind) -> String {
        let now = self.now(kind);
        match self.0 {
            Dialect::Postgres => format!("extract(epoch FROM {now} - ({expr}))::float8"),
            Dialect::Mysql => format!("TIMESTAMPDIFF(MICROSECOND, {expr}, {now}) / 1000000"),
        }
    }

    /// `expr` is longer ago than `d`: the column compared with a constant, so that an
    /// index on it serves.
    pub fn older(&self, expr: &str, kind: TimeKind, d: Duration) -> String {
        let now = self.now(kind);
        match self.0 {
            Dialect::Postgres => {
                format!(
                    "{expr} < {now} - make_interval(secs => {})",
                    d.as_secs_f64()
                )
            }
            Dialect::Mysql => format!("{expr} < {now} - INTERVAL {} MICROSECOND", d.as_micros()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_values_stay_one_name_and_one_literal() {
        let pg = Spell(Dialect::Postgres);
        let my = Spell(Dialect::Mysql);
        assert_eq!(pg.col("s", "st\"ate"), "s.\"st\"\"ate\"");
        assert_eq!(my.col("", "st`ate"), "`st``ate`");
        assert_eq!(pg.lit("it's"), "'it''s'");
        assert_eq!(my.lit("it's"), "_utf8mb4 X'69742773'");
        assert_eq!(pg.is_in("x", &[]), "1 = 0");
        assert_eq!(
            my.older("u", TimeKind::Local, Duration::from_secs(2)),
            "u < NOW(6) - INTERVAL 2000000 MICROSECOND"
        );
    }
}
