//! What the checks of one `check` run share: each read of a server done once, however
//! many targets and checks ask for it. Prepared transactions, slots and the horizon are
//! the whole server's (every database's), so 200 targets that are databases of one
//! server cost one read of each, and one connection per server; a Kafka cluster's
//! metadata and connections are opened once for its lso and hanging checks. Only what
//! was read is shared, never a failure: each target that asks after one reads with its
//! own settings. Outside a
//! check run (a command of its own) nothing is shared: every call reads afresh.

use crate::context::Context;
use anyhow::Result;
use std::any::Any;
use std::future::Future;
use std::sync::Arc;

/// Within a check run, `read` once per `key` (shared with every check of the run);
/// otherwise simply `read`. The value comes back owned (each check builds its own report
/// from it).
pub async fn once<T, F>(ctx: &Context, key: String, read: impl FnOnce() -> F) -> Result<T>
where
    T: Any + Send + Sync + Clone,
    F: Future<Output = Result<T>>,
{
    match ctx.shared() {
        Some(shared) => Ok(T::clone(&*shared.once(key, read).await?)),
        None => read().await,
    }
}

/// The same for what is used through a shared reference (a session, a cluster).
pub async fn once_shared<T, F>(
    ctx: &Context,
    key: String,
    open: impl FnOnce() -> F,
) -> Result<Arc<T>>
where
    T: Any + Send + Sync,
    F: Future<Output = Result<T>>,
{
    match ctx.shared() {
        Some(shared) => shared.once(key, open).await,
        None => open().await.map(Arc::new),
    }
}
