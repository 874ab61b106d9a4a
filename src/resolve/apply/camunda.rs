//! Setting a Camunda 7 / Operaton job's or external task's retries through the engine's
//! REST API: the engine does it under its optimistic locking and resolves the incident
//! their running out opened, which an `UPDATE … SET retries_` never does. Read back
//! through the same API afterwards, so the outcome is the engine's word.

use crate::audit::record::Status;
use crate::camunda::engine::Found;
use crate::camunda::rest::{Answer, Api, Kind};
use crate::codes;
use crate::findings::{Finding, Severity};
use crate::report::evidence::Block;
use crate::report::Target;
use crate::resolve::confirm::{Confirmed, Expected};
use crate::resolve::flow::{Applied, Plan, Proposal, Subject};
use crate::term::Shown;
use crate::text;
use crate::text::Text;
use anyhow::Result;
use std::time::Duration;

/// What is proposed for one job or external task: known before anything is sent.
pub struct SetRetries {
    pub api: Api,
    pub report_target: Target,
    /// The engine's name in the config.
    pub engine: String,
    pub found: Found,
    pub retries: u32,
    pub plan: Plan,
    pub evidence: serde_json::Value,
    pub summary: Vec<Block>,
    pub timeout: Duration,
}

impl SetRetries {
    pub fn new(
        api: Api,
        report_target: Target,
        (engine, found, retries): (String, Found, u32),
        (evidence, summary): (serde_json::Value, Vec<Block>),
        timeout: Duration,
    ) -> SetRetries {
        let plan = Plan {
            decision: "set_retries",
            heuristic: false,
            action: call_line(&api.url, found.kind, &found.id, retries),
        };
        SetRetries {
            api,
            report_target,
            engine,
            found,
            retries,
            plan,
            evidence,
            summary,
            timeout,
        }
    }

    fn what(&self) -> &'static str {
        match self.found.kind {
            Kind::Job => "job",
            Kind::ExternalTask => "external task",
        }
    }
}

/// The call as the plan and the audit record say it.
pub fn call_line(url: &str, kind: Kind, id: &str, retries: u32) -> String {
    format!(
        "PUT {url}/{}/{}/retries {{\"retries\":{retries}}}",
        kind.path(),
        crate::camunda::rest::segment(id)
    )
}

impl Proposal for SetRetries {
    fn name(&self) -> Text {
        text![self.what(), " ", self.found.id]
    }

    fn target(&self) -> Target {
        self.report_target.clone()
    }

    fn object(&self) -> String {
        format!(
            "camunda engine {} {} {}",
            self.engine,
            self.what(),
            self.found.id
        )
    }

    fn id(&self) -> Expected<'_> {
        Expected {
            shown: Shown::text(&self.found.id),
            exact: self.found.id.as_bytes(),
            called: None,
        }
    }

    fn plan(&self) -> &Plan {
        &self.plan
    }

    fn evidence(&self) -> serde_json::Value {
        self.evidence.clone()
    }

    fn summary(&self) -> Vec<Block> {
        self.summary.clone()
    }

    fn dry_run(&self) -> Text {
        text![
            "dry run: would call the engine's REST API: ",
            self.plan.action
        ]
    }
}

impl Subject for SetRetries {
    type Proposal = SetRetries;

    fn proposal(&self) -> &SetRetries {
        self
    }

    /// The API must answer as the engine's before anything is confirmed or recorded.
    async fn preflight(&mut self) -> Result<Option<Finding>> {
        Ok(match self.api.version(self.timeout).await {
            Ok(_) => None,
            Err(e) => Some(
                Finding::new(
                    Severity::Unknown,
                    codes::FAILED,
                    format!("{} {}", self.what(), self.found.id),
                    format!("nothing done: the engine's REST API did not answer as one: {e:#}"),
                )
                .advice("check rest: under the engine's section of the config (the URL ends in /engine-rest) and that the engine's REST API runs"),
            ),
        })
    }

    /// Gone meanwhile (its instance completed or was cancelled), or its retries changed
    /// since they were read (the engine ran it, or someone set them): nothing is sent.
    async fn still_valid(&mut self) -> Option<Applied> {
        match self.api.get(self.found.kind, &self.found.id, self.timeout).await {
            Ok(Answer::Refused { status: 404, .. }) => Some(Applied::new(
                Status::Refused,
                codes::CHANGED_MEANWHILE,
                format!(
                    "nothing sent: the engine no longer has {} {} (its instance went on, or was cancelled)",
                    self.what(),
                    self.found.id
                ),
            )),
            Ok(Answer::Done(Some(json))) => {
                let now = json.get("retries").and_then(|r| r.as_i64());
                let read = self.found.retries.map(i64::from);
                (now != read).then(|| {
                    Applied::new(
                        Status::Refused,
                        codes::CHANGED_MEANWHILE,
                        format!(
                            "nothing sent: {} {} has {} retries now, not {} as confirmed",
                            self.what(),
                            self.found.id,
                            now.map(|r| r.to_string()).unwrap_or_else(|| "no".into()),
                            read.map(|r| r.to_string()).unwrap_or_else(|| "none".into())
                        ),
                    )
                })
            }
            _ => None,
        }
    }

    async fn apply(&mut self, _confirmed: &Confirmed) -> Applied {
        let answer = self
            .api
            .set_retries(self.found.kind, &self.found.id, self.retries, self.timeout)
            .await;
        match answer {
            Ok(Answer::Done(_)) => {}
            Ok(Answer::Refused {
                status,
                kind,
                message,
            }) => {
                return Applied::new(
                    Status::Error,
                    codes::FAILED,
                    format!(
                        "the engine refused it: HTTP {status}{}{}",
                        kind.map(|k| format!(" {k}")).unwrap_or_default(),
                        message.map(|m| format!(": {m}")).unwrap_or_default()
                    ),
                )
                .server_code(Some(status.to_string()))
            }
            Err(e) => {
                return Applied::new(
                    Status::Unknown,
                    codes::FAILED,
                    format!(
                    "no answer from the engine, so whether it set the retries is not known: {e:#}"
                ),
                )
            }
        }
        // The engine's own word on what it holds now.
        let read_back = match self
            .api
            .get(self.found.kind, &self.found.id, self.timeout)
            .await
        {
            Ok(Answer::Done(Some(json))) => json.get("retries").and_then(|r| r.as_i64()),
            _ => None,
        };
        // The incidents the engine still has on it, in its own word.
        let incidents = match self.api.open_incidents(&self.found.id, self.timeout).await {
            Ok(Some(0)) => "; the engine has no open incident on it".to_string(),
            Ok(Some(n)) => format!("; the engine still has {n} open incident(s) on it"),
            _ => "; whether the engine still has an incident on it could not be read".to_string(),
        };
        match read_back {
            Some(r) if r == i64::from(self.retries) => Applied::new(
                Status::Ok,
                codes::RESOLVED,
                format!(
                    "the engine set {} {}'s retries to {r} (read back from it){incidents}",
                    self.what(),
                    self.found.id,
                ),
            ),
            Some(r) => Applied::new(
                Status::Ok,
                codes::RESOLVED,
                format!(
                    "the engine accepted retries {} for {} {}, and holds {r} now (it ran again meanwhile)",
                    self.retries,
                    self.what(),
                    self.found.id
                ),
            ),
            None => Applied::new(
                Status::Ok,
                codes::RESOLVED,
                format!(
                    "the engine accepted retries {} for {} {} (reading it back found it gone: it ran and its instance went on)",
                    self.retries,
                    self.what(),
                    self.found.id
                ),
            ),
        }
    }
}
