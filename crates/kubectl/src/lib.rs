//! watchlab's kubectl: the console in the page runs the seed texts' kubectl command lines
//! verbatim and answers with kubectl's own output formats and error texts. It talks to the API
//! server only through [`ApiClient`](watchlab_apimachinery::client::ApiClient), with the same
//! paths, query strings and JSON bodies the real kubectl sends over HTTP.
#![cfg_attr(not(test), warn(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod age;
pub mod flags;
pub mod gofmt;
pub mod jsonpath;
pub mod object;
pub mod printers;
pub mod resources;
pub mod shell;
pub mod tabwriter;
