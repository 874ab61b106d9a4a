//! Ids: where a message carries one, and a compact list of them (numeric ids as u64, so
//! ten million fit in 80 MB; any other id as text).

use anyhow::{bail, Result};

/// Where a message's id is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdFrom {
    Key,
    Header(String),
    /// An RFC 6901 JSON pointer into the value, e.g. `/order/id`.
    Json(String),
}

impl IdFrom {
    pub fn parse(text: &str) -> Result<IdFrom> {
        Ok(match text.split_once(':') {
            None if text == "key" => IdFrom::Key,
            Some(("header", name)) if !name.is_empty() => IdFrom::Header(name.to_string()),
            Some(("json", pointer)) if pointer.starts_with('/') => {
                IdFrom::Json(pointer.to_string())
            }
            _ => bail!("invalid --id-from {text:?}: use key, header:NAME or json:/pointer"),
        })
    }

    /// The id, or why there is none (the message is then counted as unparseable).
    pub fn extract(
        &self,
        key: Option<&[u8]>,
        headers: &[(String, Vec<u8>)],
        value: Option<&[u8]>,
    ) -> Result<String, String> {
        let text = |bytes: &[u8], what: &str| {
            std::str::from_utf8(bytes)
                .map(|s| s.trim().to_string())
                .map_err(|_| format!("{what} is not UTF-8"))
        };
        match self {
            IdFrom::Key => key
                .ok_or_else(|| "no key".to_string())
                .and_then(|k| text(k, "key")),
            IdFrom::Header(name) => headers
                .iter()
                .find(|(n, _)| n == name)
                .ok_or_else(|| format!("no header {name}"))
                .and_then(|(_, v)| text(v, "header")),
            IdFrom::Json(pointer) => {
                let value = value.ok_or_else(|| "no value".to_string())?;
                let json: serde_json::Value = serde_json::from_slice(value)
                    .map_err(|e| format!("value is not JSON ({e})"))?;
                match json.pointer(pointer) {
                    Some(serde_json::Value::String(s)) => Ok(s.clone()),
                    Some(serde_json::Value::Number(n)) => Ok(n.to_string()),
                    Some(other) => Err(format!("{pointer} is {other}, not a string or number")),
                    None => Err(format!("no {pointer} in the value")),
                }
            }
        }
    }
}

/// A multiset of ids, kept as u64 while every id is a plain number.
#[derive(Debug, Default)]
pub struct IdList {
    numeric: Vec<u64>,
    text: Vec<Box<str>>,
    all_numeric: bool,
    started: bool,
}

impl IdList {
    pub fn push(&mut self, id: &str) {
        if !self.started {
            self.started = true;
            self.all_numeric = true;
        }
        if self.all_numeric {
            match id.parse::<u64>() {
                // "007" would print back as "7": keep such ids as text.
                Ok(n) if n.to_string() == id => {
                    self.numeric.push(n);
                    return;
                }
                _ => {
                    self.all_numeric = false;
                    self.text.extend(
                        self.numeric
                            .drain(..)
                            .map(|n| n.to_string().into_boxed_str()),
                    );
                }
            }
        }
        self.text.push(id.into());
    }

    pub fn len(&self) -> usize {
        self.numeric.len() + self.text.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Sorted (id, how many times) pairs, as text so numeric and text lists compare.
    pub fn counted(mut self) -> Counted {
        if self.all_numeric {
            self.numeric.sort_unstable();
            Counted::Numeric(runs(&self.numeric))
        } else {
            self.text.sort_unstable();
            Counted::Text(runs(&self.text))
        }
    }

    /// The same ids as text (when the other side turned out not to be numeric).
    fn into_text(self) -> IdList {
        let mut text = self.text;
        text.extend(
            self.numeric
                .into_iter()
                .map(|n| n.to_string().into_boxed_str()),
        );
        IdList {
            numeric: Vec::new(),
            text,
            all_numeric: false,
            started: true,
        }
    }

    /// Two lists in one representation, for comparing them.
    pub fn aligned(a: IdList, b: IdList) -> (Counted, Counted) {
        let numeric = (a.all_numeric || !a.started) && (b.all_numeric || !b.started);
        if numeric {
            (a.counted(), b.counted())
        } else {
            (a.into_text().counted(), b.into_text().counted())
        }
    }
}

fn runs<T: Clone + PartialEq>(sorted: &[T]) -> Vec<(T, u32)> {
    let mut out: Vec<(T, u32)> = Vec::new();
    for v in sorted {
        match out.last_mut() {
            Some((last, n)) if last == v => *n += 1,
            _ => out.push((v.clone(), 1)),
        }
    }
    out
}

#[derive(Debug)]
pub enum Counted {
    Numeric(Vec<(u64, u32)>),
    Text(Vec<(Box<str>, u32)>),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_sources() {
        let headers = vec![("order_id".to_string(), b"42".to_vec())];
        assert_eq!(
            IdFrom::parse("key").unwrap().extract(Some(b"7"), &[], None),
            Ok("7".into())
        );
        assert_eq!(
            IdFrom::parse("header:order_id")
                .unwrap()
                .extract(None, &headers, None),
            Ok("42".into())
        );
        let json = IdFrom::parse("json:/order/id").unwrap();
        assert_eq!(
            json.extract(None, &[], Some(br#"{"order":{"id":4711}}"#)),
            Ok("4711".into())
        );
        assert_eq!(
            json.extract(None, &[], Some(br#"{"order":{"id":"A-1"}}"#)),
            Ok("A-1".into())
        );
        assert!(json
            .extract(None, &[], Some(b"not json"))
            .unwrap_err()
            .contains("not JSON"));
        assert!(json.extract(None, &[], Some(br#"{"order":{}}"#)).is_err());
        assert!(IdFrom::parse("header:").is_err());
        assert!(IdFrom::parse("json:order").is_err());
    }

    #[test]
    fn numeric_until_proven_otherwise() {
        let mut a = IdList::default();
        for id in ["3", "1", "3", "2"] {
            a.push(id);
        }
        match a.counted() {
            Counted::Numeric(runs) => assert_eq!(runs, vec![(1, 1), (2, 1), (3, 2)]),
            Counted::Text(_) => panic!("numeric ids"),
        }
        let mut b = IdList::default();
        for id in ["10", "007", "x"] {
            b.push(id);
        }
        assert_eq!(b.len(), 3);
        match b.counted() {
            Counted::Text(runs) => assert_eq!(
                runs.iter().map(|(s, _)| s.as_ref()).collect::<Vec<_>>(),
                ["007", "10", "x"]
            ),
            Counted::Numeric(_) => panic!("007 keeps its zeros"),
        }
    }
}
