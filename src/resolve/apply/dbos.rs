//! Resuming or cancelling a DBOS workflow through DBOS's own CLI (`dbos workflow resume`
//! / `cancel`), whose code does it as DBOS does; its password in the environment, never
//! on the command line. Read back from DBOS's tables afterwards, so the outcome is what
//! DBOS wrote.

use crate::audit::record::Status;
use crate::codes;
use crate::dbos::cli::Call;
use crate::dbos::system::{self, Found, Schema};
use crate::findings::Finding;
use crate::pg::conninfo::ConnParams;
use crate::report::evidence::Block;
use crate::report::Target;
use crate::resolve::confirm::{Confirmed, Expected};
use crate::resolve::flow::{Applied, Plan, Proposal, Subject};
use crate::settings::dbos::Action;
use crate::term::Shown;
use crate::text;
use crate::text::Text;
use anyhow::Result;
use std::time::Duration;

/// How long DBOS's CLI may take (it starts Python and connects once).
const CLI_TIMEOUT: Duration = Duration::from_secs(60);

/// What is proposed for one workflow: known before anything is run.
pub struct DbosCall {
    pub call: Call,
    pub params: ConnParams,
    pub schema: Schema,
    pub report_target: Target,
    /// The application's name in the config.
    pub app: String,
    pub found: Found,
    pub action: Action,
    /// The newest version DBOS registered for its application (only a process of the
    /// workflow's own version runs it once resumed).
    pub latest: Option<String>,
    pub plan: Plan,
    pub evidence: serde_json::Value,
    pub summary: Vec<Block>,
    pub timeout: Duration,
}

impl DbosCall {
    #[allow(clippy::too_many_arguments)] // one workflow's whole description, once
    pub fn new(
        call: Call,
        (params, schema): (ConnParams, Schema),
        report_target: Target,
        (app, found, action, latest): (String, Found, Action, Option<String>),
        (evidence, summary): (serde_json::Value, Vec<Block>),
        timeout: Duration,
    ) -> DbosCall {
        let plan = Plan {
            decision: action.word(),
            heuristic: false,
            action: crate::next::Next::argv(&call.argv).line(),
        };
        DbosCall {
            call,
            params,
            schema,
            report_target,
            app,
            found,
            action,
            latest,
            plan,
            evidence,
            summary,
            timeout,
        }
    }

    /// The workflow as DBOS's tables hold it now.
    async fn reread(&self) -> Result<Option<Found>> {
        let session = crate::pg::session::connect(&self.params, self.timeout).await?;
        system::find(&session, &self.schema, &self.found.id).await
    }
}

impl Proposal for DbosCall {
    fn name(&self) -> Text {
        text!["workflow ", self.found.id]
    }

    fn target(&self) -> Target {
        self.report_target.clone()
    }

    fn object(&self) -> String {
        format!("dbos application {} workflow {}", self.app, self.found.id)
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
        text!["dry run: would run DBOS's CLI: ", self.plan.action]
    }
}

impl Subject for DbosCall {
    type Proposal = DbosCall;

    fn proposal(&self) -> &DbosCall {
        self
    }

    async fn preflight(&mut self) -> Result<Option<Finding>> {
        Ok(None)
    }

    /// Its status changed since it was read (it ran, or someone else acted): nothing runs.
    async fn still_valid(&mut self) -> Option<Applied> {
        match self.reread().await {
            Ok(Some(now)) if now.status != self.found.status => Some(Applied::new(
                Status::Refused,
                codes::CHANGED_MEANWHILE,
                format!(
                    "nothing run: workflow {} is {} now, not {} as confirmed",
                    self.found.id, now.status, self.found.status
                ),
            )),
            Ok(None) => Some(Applied::new(
                Status::Refused,
                codes::CHANGED_MEANWHILE,
                format!("nothing run: workflow {} is gone", self.found.id),
            )),
            _ => None,
        }
    }

    async fn apply(&mut self, _confirmed: &Confirmed) -> Applied {
        let Some((program, args)) = self.call.argv.split_first() else {
            return Applied::new(Status::Error, codes::FAILED, "nothing run: no CLI");
        };
        let mut command = tokio::process::Command::new(program);
        command
            .args(args)
            .envs(self.call.env.iter().map(|(k, v)| (*k, v.as_str())))
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true);
        let output = match tokio::time::timeout(CLI_TIMEOUT, command.output()).await {
            Ok(Ok(output)) => output,
            Ok(Err(e)) => {
                return Applied::new(
                    Status::Error,
                    codes::FAILED,
                    format!("nothing done: DBOS's CLI {program} could not be run: {e}"),
                )
                .advice("name DBOS's CLI under dbos: NAME: cli: in the config (the dbos program of the application's environment)")
            }
            Err(_) => {
                return Applied::new(
                    Status::Unknown,
                    codes::FAILED,
                    format!(
                        "DBOS's CLI did not finish within {}s and was stopped: whether it acted is not known",
                        CLI_TIMEOUT.as_secs()
                    ),
                )
            }
        };
        if !output.status.success() {
            // Its last line says why (a Python traceback ends with the exception).
            let stderr = String::from_utf8_lossy(&output.stderr);
            let why = stderr
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("")
                .chars()
                .filter(|c| !c.is_control())
                .take(500)
                .collect::<String>();
            return Applied::new(
                Status::Error,
                codes::FAILED,
                format!("DBOS's CLI failed ({}): {why}", output.status),
            );
        }
        // What DBOS wrote: the outcome is its tables' word, not the CLI's silence.
        match (self.action, self.reread().await) {
            (Action::Cancel, Ok(Some(now))) if now.status == "CANCELLED" => Applied::new(
                Status::Ok,
                codes::RESOLVED,
                format!(
                    "DBOS cancelled workflow {} (its status is CANCELLED)",
                    self.found.id
                ),
            ),
            (Action::Resume, Ok(Some(now)))
                if now.status != self.found.status || now.updated_ms > self.found.updated_ms =>
            {
                let version = now.version.as_deref().unwrap_or("(none)");
                Applied::new(
                    Status::Ok,
                    codes::RESOLVED,
                    format!(
                        "DBOS resumed workflow {}: it is {} now{}; only a process of version {version} runs it{}",
                        self.found.id,
                        now.status,
                        now.queue
                            .as_deref()
                            .map(|q| format!(" on queue {q}"))
                            .unwrap_or_default(),
                        match &self.latest {
                            Some(latest) if latest != version => format!(
                                ", and the newest version is {latest}: start a process of version {version}, or nothing runs it"
                            ),
                            _ => String::new(),
                        }
                    ),
                )
            }
            (_, Ok(Some(now))) => Applied::new(
                Status::Unknown,
                codes::FAILED,
                format!(
                    "DBOS's CLI ended without error, but workflow {} is still {}: it did nothing",
                    self.found.id, now.status
                ),
            ),
            (_, Ok(None)) => Applied::new(
                Status::Unknown,
                codes::FAILED,
                format!(
                    "DBOS's CLI ended without error, and workflow {} is gone",
                    self.found.id
                ),
            ),
            (_, Err(e)) => Applied::new(
                Status::Unknown,
                codes::FAILED,
                format!("DBOS's CLI ended without error; reading the workflow back failed: {e:#}"),
            ),
        }
    }
}
