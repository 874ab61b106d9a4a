//! Apache Seata's transaction coordinator (TC) as its database store (`store.mode=db`)
//! shows it: global transactions, their branches and the row locks they hold, as typed
//! data. What the statuses mean is here; what they come to for an operator is not.

pub mod fence;
pub mod mysql_store;
pub mod saga;
pub mod status;
pub mod store;
pub mod undo;
