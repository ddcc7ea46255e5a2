//! The `Warning` header over HTTP: a create with an unknown field and no `fieldValidation`
//! (the real default is Warn) answers 201 with `Warning: 299 - "unknown field \"spec.foo\""`,
//! as `warning.NewWarningsRecorder` writes it; `fieldValidation=Strict` answers the 400.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::TestServer;
use std::io::{Read, Write};
use std::net::TcpStream;

/// One HTTP/1.1 request with `Connection: close`; the whole answer (head and body) as text.
fn post(s: &TestServer, path: &str, body: &str) -> String {
    let mut conn = TcpStream::connect(s.addr).expect("connect");
    write!(
        conn,
        "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        s.addr,
        body.len()
    )
    .expect("send");
    let mut answer = String::new();
    conn.read_to_string(&mut answer).expect("read");
    answer
}

#[test]
fn unknown_fields_warn_by_default_and_strict_refuses() {
    let s = TestServer::start();
    let pod = |name: &str| {
        format!(
            r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{name}"}},"spec":{{"foo":1,"containers":[{{"name":"a","image":"nginx"}}]}}}}"#
        )
    };
    let warned = post(&s, "/api/v1/namespaces/default/pods", &pod("warned"));
    assert!(warned.starts_with("HTTP/1.1 201"), "{warned}");
    assert!(
        warned
            .to_ascii_lowercase()
            .contains("\r\nwarning: 299 - \"unknown field \\\"spec.foo\\\"\"\r\n"),
        "{warned}"
    );
    let refused = post(
        &s,
        "/api/v1/namespaces/default/pods?fieldValidation=Strict",
        &pod("refused"),
    );
    assert!(refused.starts_with("HTTP/1.1 400"), "{refused}");
    assert!(
        refused.contains(r#"strict decoding error: unknown field \"spec.foo\""#),
        "{refused}"
    );
    assert!(
        !refused.to_ascii_lowercase().contains("warning:"),
        "{refused}"
    );
}
