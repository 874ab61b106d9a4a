//! Measured values for Prometheus: a family (its name in base units, its help) is defined
//! once, beside the probe that measures it, and each sample carries labels that name
//! stable objects (a database, a slot, a saga), never free text.

use serde::Serialize;

/// One metric family: `indoubt_<area>_<what>_<unit>`, a gauge.
#[derive(Debug)]
pub struct Family {
    pub name: &'static str,
    pub help: &'static str,
    /// The labels its samples carry besides `target` (which `check` adds).
    pub labels: &'static [&'static str],
}

/// One sample of a family.
#[derive(Debug, Clone, Serialize)]
pub struct Measure {
    pub family: &'static str,
    pub labels: Vec<(&'static str, String)>,
    pub value: f64,
}

impl Family {
    /// A sample of this family with no labels yet.
    pub fn at(&'static self, value: f64) -> Measure {
        Measure {
            family: self.name,
            labels: Vec::new(),
            value,
        }
    }
}

impl Measure {
    pub fn label(mut self, key: &'static str, value: impl Into<String>) -> Measure {
        self.labels.push((key, value.into()));
        self
    }
}

/// How many objects of one kind get series of their own (the oldest first): the rest
/// are in the aggregate series only.
pub const PER_OBJECT: usize = 5;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_carries_its_family_and_labels_in_order() {
        static F: Family = Family {
            name: "indoubt_test_age_seconds",
            help: "h",
            labels: &["database"],
        };
        let m = F.at(2.5).label("database", "shop");
        assert_eq!(m.family, "indoubt_test_age_seconds");
        assert_eq!(m.labels, vec![("database", "shop".to_string())]);
    }
}
