//! One small component per file.

pub mod node_column;
