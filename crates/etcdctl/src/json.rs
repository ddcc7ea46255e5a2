//! etcdctl's `-w json` is Go's `encoding/json` over etcd's protobuf structs: fields in their
//! declared order, zero values left out where the struct tag says `omitempty` (every field of
//! a protobuf message), bytes in base64. serde_json's map would sort the keys, so an
//! [`Object`] writes them in the order they are given.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use serde_json::Value;

use crate::api::{KeyValue, ResponseHeader};

/// A JSON object written field by field.
pub struct Object(String);

impl Default for Object {
    fn default() -> Self {
        Object(String::from("{"))
    }
}

impl Object {
    pub fn new() -> Self {
        Object::default()
    }

    /// A field whose value is already JSON.
    pub fn raw(mut self, name: &str, json: &str) -> Self {
        if self.0.len() > 1 {
            self.0.push(',');
        }
        self.0.push_str(&Value::from(name).to_string());
        self.0.push(':');
        self.0.push_str(json);
        self
    }

    pub fn value(self, name: &str, v: impl Into<Value>) -> Self {
        let json = v.into().to_string();
        self.raw(name, &json)
    }

    /// A number left out when zero (`omitempty`).
    pub fn number(self, name: &str, n: impl Into<i128>) -> Self {
        let n = n.into();
        if n == 0 {
            self
        } else {
            self.raw(name, &n.to_string())
        }
    }

    /// A flag left out when false (`omitempty`).
    pub fn value_if(self, name: &str, flag: bool) -> Self {
        if flag {
            self.value(name, true)
        } else {
            self
        }
    }

    /// A text left out when empty (`omitempty`).
    pub fn text(self, name: &str, s: &str) -> Self {
        if s.is_empty() {
            self
        } else {
            self.value(name, s)
        }
    }

    /// Bytes, in base64, left out when empty.
    pub fn bytes(self, name: &str, s: &str) -> Self {
        if s.is_empty() {
            self
        } else {
            self.value(name, BASE64.encode(s))
        }
    }

    /// A list of JSON values, left out when empty.
    pub fn list(self, name: &str, items: &[String]) -> Self {
        if items.is_empty() {
            self
        } else {
            self.raw(name, &format!("[{}]", items.join(",")))
        }
    }

    pub fn finish(mut self) -> String {
        self.0.push('}');
        self.0
    }
}

/// `etcdserverpb.ResponseHeader`.
pub fn header(h: &ResponseHeader) -> String {
    Object::new()
        .number("cluster_id", h.cluster_id)
        .number("member_id", h.member_id)
        .number("revision", h.revision)
        .number("raft_term", h.raft_term)
        .finish()
}

/// `mvccpb.KeyValue`.
pub fn key_value(kv: &KeyValue) -> String {
    Object::new()
        .bytes("key", &kv.key)
        .number("create_revision", kv.create_revision)
        .number("mod_revision", kv.mod_revision)
        .number("version", kv.version)
        .bytes("value", &kv.value)
        .number("lease", kv.lease)
        .finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_keep_their_order_and_zeros_are_left_out() {
        let kv = KeyValue {
            key: "a".into(),
            create_revision: 0,
            mod_revision: 7,
            version: 0,
            value: String::new(),
            lease: 0,
        };
        assert_eq!(key_value(&kv), r#"{"key":"YQ==","mod_revision":7}"#);
        let h = ResponseHeader {
            cluster_id: 2,
            member_id: 1,
            revision: 0,
            raft_term: 3,
        };
        assert_eq!(
            header(&h),
            r#"{"cluster_id":2,"member_id":1,"raft_term":3}"#
        );
    }
}
