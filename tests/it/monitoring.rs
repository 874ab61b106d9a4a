//! The alerting rules and the dashboard in monitoring/: valid for Prometheus (`promtool check rules`), each
//! alert firing on the series it reads and not on healthy ones (`promtool test rules`
//! with monitoring/indoubt.rules.test.yml), and reading only series indoubt exposes:
//! the probes' measured families and the check series, and finding codes that exist.

use crate::common;
use std::process::Command;

fn promtool(args: &[&str]) -> String {
    let out = Command::new("promtool")
        .args(args)
        .current_dir(common::repo_root().join("monitoring"))
        .output()
        .expect("promtool (Debian package prometheus)");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "promtool {args:?}: {said}");
    said
}

#[test]
fn the_alert_rules_are_valid_fire_on_their_series_and_read_only_what_indoubt_exposes() {
    promtool(&["check", "rules", "indoubt.rules.yml"]);
    let tested = promtool(&["test", "rules", "indoubt.rules.test.yml"]);
    assert!(tested.contains("SUCCESS"), "{tested}");
    let rules =
        std::fs::read_to_string(common::repo_root().join("monitoring/indoubt.rules.yml")).unwrap();
    let tests =
        std::fs::read_to_string(common::repo_root().join("monitoring/indoubt.rules.test.yml"))
            .unwrap();
    let mut exposed: Vec<&str> = indoubt::commands::probes::ALL
        .iter()
        .flat_map(|p| p.measures().iter().map(|f| f.name))
        .collect();
    exposed.extend([
        "indoubt_up",
        "indoubt_target_up",
        "indoubt_check_status",
        "indoubt_finding_severity",
        "indoubt_findings",
        "indoubt_check_run_timestamp_seconds",
    ]);
    let alerts: Vec<&str> = rules
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- alert: "))
        .collect();
    assert!(alerts.len() >= 20, "{alerts:?}");
    for alert in &alerts {
        assert!(
            tests.contains(&format!("alertname: {alert}\n")),
            "{alert} has no promtool test"
        );
    }
    // The dashboard's panels read only what indoubt exposes too.
    let dashboard: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(common::repo_root().join("monitoring/indoubt.dashboard.json"))
            .unwrap(),
    )
    .unwrap();
    let panels: Vec<String> = dashboard["panels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["targets"][0]["expr"].as_str().unwrap().to_string())
        .collect();
    assert!(panels.len() >= 15, "{panels:?}");
    for expr in panels.iter().map(String::as_str).chain(
        rules
            .lines()
            .filter_map(|l| l.trim().strip_prefix("expr: ")),
    ) {
        for name in expr
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| w.starts_with("indoubt_"))
        {
            assert!(exposed.contains(&name), "{name} (in {expr}) is not exposed");
        }
        for code in expr
            .split("code=~\"")
            .skip(1)
            .chain(expr.split("code=\"").skip(1))
        {
            let codes = &code[..code.find('"').unwrap()];
            for c in codes.split('|') {
                assert!(
                    indoubt::commands::probes::code(c).is_some(),
                    "{c} (in {expr}) is no finding code"
                );
            }
        }
    }
}
