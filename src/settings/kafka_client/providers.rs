//! Kafka's config providers, so a secret never has to be written into a property: a value
//! `${file:/path:key}` (KIP-297 FileConfigProvider: the key of a properties file) or
//! `${env:NAME}` (KIP-887 EnvVarConfigProvider), declared as the Java client wants it:
//! `config.providers=file,env` and `config.providers.file.class=…FileConfigProvider`.

use super::syntax::{parse_properties, reference_pattern};
use crate::error::hinted;
use anyhow::{anyhow, bail, Context, Result};
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

const FILE_CLASS: &str = "org.apache.kafka.common.config.provider.FileConfigProvider";
const ENV_CLASS: &str = "org.apache.kafka.common.config.provider.EnvVarConfigProvider";

enum Provider {
    /// Java's FileConfigProvider; `allowed.paths` (KIP-993) confines it.
    File { allowed: Option<Vec<PathBuf>> },
    /// Java's EnvVarConfigProvider; `allowlist.pattern` confines it (Java: a find, not a full match).
    Env { allowlist: Option<regex::Regex> },
}

/// The providers the properties declare.
pub struct Providers {
    by_name: BTreeMap<String, Provider>,
}

impl Providers {
    pub fn from_properties(props: &BTreeMap<String, String>) -> Result<Providers> {
        let names: Vec<String> = props
            .get("config.providers")
            .map(|list| {
                list.split(',')
                    .map(|n| n.trim().to_string())
                    .filter(|n| !n.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        for key in props.keys() {
            if let Some(rest) = key.strip_prefix("config.providers.") {
                let name = rest.split('.').next().unwrap_or("");
                if !names.iter().any(|n| n == name) {
                    return Err(hinted(
                        format!("{key} sets up config provider {name:?}, which config.providers does not list"),
                        format!("add it: -X config.providers={}", names.iter().map(String::as_str).chain([name]).collect::<Vec<_>>().join(",")),
                    ));
                }
            }
        }
        let mut by_name = BTreeMap::new();
        for name in names {
            let param = |p: &str| props.get(&format!("config.providers.{name}.param.{p}"));
            let class = props
                .get(&format!("config.providers.{name}.class"))
                .map(|c| c.trim())
                .unwrap_or("");
            let provider = match class {
                FILE_CLASS => Provider::File {
                    allowed: param("allowed.paths").map(|p| allowed_paths(p)).transpose()?,
                },
                ENV_CLASS => Provider::Env {
                    allowlist: param("allowlist.pattern")
                        .map(|p| {
                            regex::Regex::new(p).map_err(|e| {
                                anyhow!("config.providers.{name}.param.allowlist.pattern: {e}")
                            })
                        })
                        .transpose()?,
                },
                "" => {
                    return Err(hinted(
                        format!("config provider {name:?} has no class"),
                        format!("set config.providers.{name}.class={FILE_CLASS} or {ENV_CLASS}"),
                    ))
                }
                other => {
                    return Err(hinted(
                        format!("config provider class {other:?} is not supported"),
                        format!("indoubt reads {FILE_CLASS} (${{{name}:/path/file.properties:key}}) and {ENV_CLASS} (${{{name}:VARIABLE}})"),
                    ))
                }
            };
            let known: &[&str] = match provider {
                Provider::File { .. } => &["allowed.paths"],
                Provider::Env { .. } => &["allowlist.pattern"],
            };
            let prefix = format!("config.providers.{name}.param.");
            if let Some(unknown) = props
                .keys()
                .filter_map(|k| k.strip_prefix(&prefix))
                .find(|p| !known.contains(p))
            {
                bail!(
                    "config.providers.{name}.param.{unknown} is not a parameter of that provider (it takes {})",
                    known.join(", ")
                );
            }
            by_name.insert(name, provider);
        }
        Ok(Providers { by_name })
    }

    /// The value with every reference replaced by what it names. `property` names the
    /// value in messages; the value and what references read are never shown.
    pub fn resolve(
        &self,
        property: &str,
        value: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<String> {
        let pattern = reference_pattern();
        if !pattern.is_match(value) {
            return Ok(value.to_string());
        }
        let mut out = String::with_capacity(value.len());
        let mut at = 0;
        for found in pattern.captures_iter(value) {
            let (Some(whole), Some(name)) = (found.get(0), found.get(1)) else {
                continue;
            };
            let path = found.get(2).map(|m| m.as_str()).unwrap_or("");
            let key = found.get(3).map(|m| m.as_str()).unwrap_or("");
            let name = name.as_str();
            let Some(provider) = self.by_name.get(name) else {
                // Java would send the text as it is; a password `${env:X}` is never meant.
                return Err(hinted(
                    format!("{property} refers to config provider {name:?}, which config.providers does not declare"),
                    format!(
                        "declare it as the Java client does: -X config.providers={name} -X config.providers.{name}.class={}",
                        if name == "env" { ENV_CLASS } else { FILE_CLASS }
                    ),
                ));
            };
            let resolved = match provider {
                Provider::File { allowed } => {
                    read_file_key(property, path, key, allowed.as_deref())?
                }
                Provider::Env { allowlist } => {
                    if !path.is_empty() {
                        bail!("{property}: ${{{name}:…}} takes a variable name only, not a path");
                    }
                    if allowlist.as_ref().is_some_and(|p| !p.is_match(key)) {
                        bail!("{property}: environment variable {key} is not allowed by config.providers.{name}.param.allowlist.pattern");
                    }
                    env(key).with_context(|| {
                        format!("{property}: environment variable {key} is not set")
                    })?
                }
            };
            out.push_str(&value[at..whole.start()]);
            out.push_str(&resolved);
            at = whole.end();
        }
        out.push_str(&value[at..]);
        Ok(out)
    }
}

/// The value of `key` in the Java properties file at `path`.
fn read_file_key(
    property: &str,
    path: &str,
    key: &str,
    allowed: Option<&[PathBuf]>,
) -> Result<String> {
    if path.is_empty() {
        bail!("{property}: a file reference needs a path: ${{file:/path/file.properties:key}}");
    }
    let normal = normalize(Path::new(path));
    if let Some(allowed) = allowed {
        if !allowed.iter().any(|a| normal.starts_with(a)) {
            bail!("{property}: {path} is outside the file provider's allowed.paths");
        }
    }
    let file = crate::fsafe::read_settings(&normal, "file of a config provider")
        .with_context(|| format!("{property}: reading {path}"))?;
    let entries =
        parse_properties(&file.text).with_context(|| format!("{property}: reading {path}"))?;
    if super::properties::lookup(property).is_some_and(|p| p.secret) {
        file.warn_if_others_can_read();
    }
    entries
        .into_iter()
        .rev()
        .find(|e| e.key == key)
        .map(|e| e.value)
        .with_context(|| format!("{property}: {path} has no key {key:?}"))
}

/// KIP-993: comma-separated absolute paths that exist.
fn allowed_paths(list: &str) -> Result<Vec<PathBuf>> {
    list.split(',')
        .map(|p| {
            let path = normalize(Path::new(p.trim()));
            if path.is_absolute() && path.exists() {
                Ok(path)
            } else {
                Err(anyhow!(
                    "allowed.paths: {} is not valid: a path must be absolute and exist",
                    path.display()
                ))
            }
        })
        .collect()
}

/// `a/./b/../c` as `a/c`, without touching the file system (Java's Path.normalize).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures in private temporary directories
mod tests {
    use super::*;
    use crate::error::hint_of;

    fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn file_and_env_references_are_resolved() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("secrets.properties");
        std::fs::write(&file, "# kafka\npassword = p\\=w rd\nother=x\n").unwrap();
        let p = Providers::from_properties(&props(&[
            ("config.providers", "file, env"),
            ("config.providers.file.class", FILE_CLASS),
            ("config.providers.env.class", ENV_CLASS),
        ]))
        .unwrap();
        let reference = format!("${{file:{}:password}}", file.display());
        assert_eq!(
            p.resolve("sasl.password", &reference, &no_env).unwrap(),
            "p=w rd"
        );
        let env = |k: &str| (k == "KAFKA_USER").then(|| "svc".to_string());
        assert_eq!(
            p.resolve(
                "sasl.jaas.config",
                "M required username=\"${env:KAFKA_USER}\" password=\"x\";",
                &env
            )
            .unwrap(),
            "M required username=\"svc\" password=\"x\";"
        );
        assert_eq!(
            p.resolve("sasl.password", "plain", &no_env).unwrap(),
            "plain"
        );
        let err = p
            .resolve("sasl.password", "${env:NOPE}", &no_env)
            .unwrap_err();
        assert!(err.to_string().contains("NOPE is not set"), "{err}");
        let err = p
            .resolve(
                "sasl.password",
                &format!("${{file:{}:missing}}", file.display()),
                &no_env,
            )
            .unwrap_err();
        assert!(format!("{err:#}").contains("has no key"), "{err:#}");
        assert!(!format!("{err:#}").contains("p=w"), "{err:#}");
    }

    #[test]
    fn an_undeclared_provider_is_refused_with_the_declaration() {
        let p = Providers::from_properties(&props(&[])).unwrap();
        let err = p
            .resolve("sasl.password", "${env:KAFKA_PASSWORD}", &no_env)
            .unwrap_err();
        assert!(
            hint_of(&err).unwrap().contains(&format!(
                "config.providers=env -X config.providers.env.class={ENV_CLASS}"
            )),
            "{:?}",
            hint_of(&err)
        );
    }

    #[test]
    fn what_java_confines_stays_confined() {
        let dir = tempfile::tempdir().unwrap();
        let allowed = dir.path().join("allowed");
        std::fs::create_dir(&allowed).unwrap();
        std::fs::write(dir.path().join("outside.properties"), "pw=x\n").unwrap();
        let p = Providers::from_properties(&props(&[
            ("config.providers", "file,env"),
            ("config.providers.file.class", FILE_CLASS),
            (
                "config.providers.file.param.allowed.paths",
                &allowed.to_string_lossy(),
            ),
            ("config.providers.env.class", ENV_CLASS),
            ("config.providers.env.param.allowlist.pattern", "^KAFKA_"),
        ]))
        .unwrap();
        let sneaky = format!("${{file:{}/../outside.properties:pw}}", allowed.display());
        assert!(p.resolve("sasl.password", &sneaky, &no_env).is_err());
        let env = |_: &str| Some("v".to_string());
        assert!(p.resolve("sasl.password", "${env:HOME}", &env).is_err());
        assert_eq!(
            p.resolve("sasl.password", "${env:KAFKA_PW}", &env).unwrap(),
            "v"
        );
    }

    #[test]
    fn setups_java_would_not_run_are_refused() {
        for bad in [
            props(&[
                ("config.providers", "vault"),
                ("config.providers.vault.class", "com.example.Vault"),
            ]),
            props(&[("config.providers", "file")]),
            props(&[("config.providers.file.class", FILE_CLASS)]),
            props(&[
                ("config.providers", "file"),
                ("config.providers.file.class", FILE_CLASS),
                ("config.providers.file.param.nonsense", "1"),
            ]),
        ] {
            assert!(Providers::from_properties(&bad).is_err(), "{bad:?}");
        }
    }
}
