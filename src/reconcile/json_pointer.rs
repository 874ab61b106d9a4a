//! An RFC 6901 JSON pointer followed through a message value as it is parsed, without
//! building the document: the one string or number it names is all a reconcile needs,
//! once per message. A number is taken as its exact text, never through a float.

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// A parsed pointer: its text (for messages) and its reference tokens, unescaped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pointer {
    pub text: String,
    tokens: Vec<String>,
}

impl Pointer {
    /// `text` starts with `/`.
    pub fn parse(text: &str) -> Pointer {
        Pointer {
            text: text.to_string(),
            tokens: text
                .split('/')
                .skip(1)
                .map(|t| t.replace("~1", "/").replace("~0", "~"))
                .collect(),
        }
    }

    /// The string or number at the pointer, as text; or why there is none.
    pub fn find<'a>(&self, json: &'a [u8]) -> Result<Cow<'a, str>, String> {
        let mut de = serde_json::Deserializer::from_slice(json);
        let found = Follow(&self.tokens)
            .deserialize(&mut de)
            .and_then(|found| de.end().map(|()| found))
            .map_err(|e| format!("value is not JSON ({e})"))?;
        match found {
            Some(Leaf::Id(id)) => Ok(id),
            Some(Leaf::Other(kind)) => {
                Err(format!("{} is {kind}, not a string or number", self.text))
            }
            None => Err(format!("no {} in the value", self.text)),
        }
    }
}

/// An object key, borrowed from the message unless it holds escapes (serde's own
/// `Cow<str>` always copies).
struct Key<'a>(Cow<'a, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object key")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

enum Leaf<'a> {
    Id(Cow<'a, str>),
    /// What the pointer names instead: "an object", "null", …
    Other(&'static str),
}

/// The rest of the path, applied to the next value.
struct Follow<'p>(&'p [String]);

impl<'de> DeserializeSeed<'de> for Follow<'_> {
    type Value = Option<Leaf<'de>>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        if self.0.is_empty() {
            // The value the pointer names, as the text the message holds: serde_json
            // would turn 18446744073709551616 (above u64) into a float and round it.
            let raw = <&'de RawValue as serde::Deserialize>::deserialize(d)?;
            return leaf(raw.get()).map(Some).map_err(serde::de::Error::custom);
        }
        d.deserialize_any(self)
    }
}

/// A string's content, or a number exactly as written (`1e3` stays `1e3`: ids are
/// compared as text, as keys and headers are).
fn leaf(raw: &str) -> Result<Leaf<'_>, serde_json::Error> {
    Ok(match raw.as_bytes().first() {
        Some(b'"') => match raw.get(1..raw.len() - 1) {
            Some(inner) if !inner.contains('\\') => Leaf::Id(Cow::Borrowed(inner)),
            _ => Leaf::Id(Cow::Owned(serde_json::from_str::<String>(raw)?)),
        },
        Some(b'-' | b'0'..=b'9') => Leaf::Id(Cow::Borrowed(raw)),
        Some(b'{') => Leaf::Other("an object"),
        Some(b'[') => Leaf::Other("an array"),
        Some(b't') => Leaf::Other("true"),
        Some(b'f') => Leaf::Other("false"),
        _ => Leaf::Other("null"),
    })
}

/// Deeper than the pointer's last token: only objects and arrays lead anywhere.
impl<'de> Visitor<'de> for Follow<'_> {
    type Value = Option<Leaf<'de>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let Some((token, rest)) = self.0.split_first() else {
            return Ok(None);
        };
        let mut found = None;
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            // A repeated key: the last one wins, as when the document is built.
            if key == token.as_str() {
                found = map.next_value_seed(Follow(rest))?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let Some((token, rest)) = self.0.split_first() else {
            return Ok(None);
        };
        // RFC 6901: an index is 0 or digits without a leading zero.
        let index = token
            .parse::<usize>()
            .ok()
            .filter(|_| token.bytes().all(|b| b.is_ascii_digit()))
            .filter(|_| token == "0" || !token.starts_with('0'));
        let mut found = None;
        let mut at = 0;
        loop {
            if Some(at) == index {
                match seq.next_element_seed(Follow(rest))? {
                    Some(leaf) => found = leaf,
                    None => break,
                }
            } else if seq.next_element::<IgnoredAny>()?.is_none() {
                break;
            }
            at += 1;
        }
        Ok(found)
    }

    // A scalar where the path goes on: the pointer names nothing.
    fn visit_borrowed_str<E>(self, _: &'de str) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(pointer: &str, json: &str) -> Result<String, String> {
        Pointer::parse(pointer)
            .find(json.as_bytes())
            .map(|c| c.into_owned())
    }

    #[test]
    fn follows_objects_arrays_and_escapes_like_serde_json_pointer() {
        let doc = r#"{"order":{"id":4711,"tags":["a",{"x":"y"}]},"a/b":{"m~n":"esc"},"f":1.5,"neg":-3,"s":"café \u00e9","dup":1,"dup":2}"#;
        for pointer in [
            "/order/id",
            "/order/tags/0",
            "/order/tags/1/x",
            "/a~1b/m~0n",
            "/f",
            "/neg",
            "/s",
            "/dup",
        ] {
            let expected = serde_json::from_str::<serde_json::Value>(doc)
                .unwrap()
                .pointer(pointer)
                .map(|v| match v {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .unwrap();
            assert_eq!(find(pointer, doc).unwrap(), expected, "{pointer}");
        }
        assert_eq!(
            find("/order/tags/01", doc).unwrap_err(),
            "no /order/tags/01 in the value"
        );
        assert_eq!(
            find("/order/tags/+1", doc).unwrap_err(),
            "no /order/tags/+1 in the value"
        );
        assert_eq!(
            find("/order/tags/2", doc).unwrap_err(),
            "no /order/tags/2 in the value"
        );
        assert_eq!(
            find("/order/id/x", doc).unwrap_err(),
            "no /order/id/x in the value"
        );
        assert_eq!(
            find("/order", doc).unwrap_err(),
            "/order is an object, not a string or number"
        );
        assert_eq!(
            find("/n", r#"{"n":null}"#).unwrap_err(),
            "/n is null, not a string or number"
        );
        assert!(find("/order/id", r#"{"order":{"id":1}} trailing"#)
            .unwrap_err()
            .starts_with("value is not JSON"));
        assert!(find("/a", "not json")
            .unwrap_err()
            .starts_with("value is not JSON"));
        assert_eq!(
            find("/t", r#"{"t":true}"#).unwrap_err(),
            "/t is true, not a string or number"
        );
        assert_eq!(
            find("/a", r#"{"a":[1]}"#).unwrap_err(),
            "/a is an array, not a string or number"
        );
    }

    #[test]
    fn numbers_are_their_exact_text() {
        for (json, id) in [
            (r#"{"id":18446744073709551616}"#, "18446744073709551616"),
            (
                r#"{"id":123456789012345678901234567890}"#,
                "123456789012345678901234567890",
            ),
            (r#"{"id":-9223372036854775809}"#, "-9223372036854775809"),
            (r#"{"id":1000}"#, "1000"),
            (r#"{"id":1e3}"#, "1e3"),
            (r#"{"id":1000.0}"#, "1000.0"),
            (r#"{"id":1.5E+2}"#, "1.5E+2"),
            (r#"{"id": 42 }"#, "42"),
            (r#"{"id":"18446744073709551616"}"#, "18446744073709551616"),
            (r#"{"id":"a\"b\u00e9"}"#, "a\"bé"),
        ] {
            assert_eq!(find("/id", json).unwrap(), id, "{json}");
        }
        assert!(find("/id", r#"{"id":01}"#)
            .unwrap_err()
            .starts_with("value is not JSON"));
    }
}
