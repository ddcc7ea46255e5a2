//! `-w fields` (`ctlv3/command/printer_fields.go`): one `"Name" : value` line per field of
//! the response header and of each key, texts quoted as Go's `%q` quotes them.

use watchlab_apimachinery::gofmt::go_quote;

use crate::api::{DeleteRangeResponse, KeyValue, PutResponse, RangeResponse, ResponseHeader};

fn header(out: &mut String, hex: bool, h: &ResponseHeader) {
    if hex {
        out.push_str(&format!(
            "\"ClusterID\" : {:x}\n\"MemberID\" : {:x}\n",
            h.cluster_id, h.member_id
        ));
    } else {
        out.push_str(&format!(
            "\"ClusterID\" : {}\n\"MemberID\" : {}\n",
            h.cluster_id, h.member_id
        ));
    }
    // etcd leaves the revision out of answers that carry none.
    if h.revision > 0 {
        out.push_str(&format!("\"Revision\" : {}\n", h.revision));
    }
    out.push_str(&format!("\"RaftTerm\" : {}\n", h.raft_term));
}

fn key_value(out: &mut String, hex: bool, prefix: &str, kv: &KeyValue) {
    out.push_str(&format!("\"{prefix}Key\" : {}\n", go_quote(&kv.key)));
    out.push_str(&format!(
        "\"{prefix}CreateRevision\" : {}\n",
        kv.create_revision
    ));
    out.push_str(&format!("\"{prefix}ModRevision\" : {}\n", kv.mod_revision));
    out.push_str(&format!("\"{prefix}Version\" : {}\n", kv.version));
    out.push_str(&format!("\"{prefix}Value\" : {}\n", go_quote(&kv.value)));
    if hex {
        out.push_str(&format!("\"{prefix}Lease\" : {:016x}\n", kv.lease));
    } else {
        out.push_str(&format!("\"{prefix}Lease\" : {}\n", kv.lease));
    }
}

pub fn get(hex: bool, resp: &RangeResponse) -> String {
    let mut out = String::new();
    header(&mut out, hex, &resp.header);
    for kv in &resp.kvs {
        key_value(&mut out, hex, "", kv);
    }
    out.push_str(&format!(
        "\"More\" : {}\n\"Count\" : {}\n",
        resp.more, resp.count
    ));
    out
}

pub fn put(hex: bool, resp: &PutResponse, with_prev: bool) -> String {
    let mut out = String::new();
    header(&mut out, hex, &resp.header);
    if let Some(prev) = resp.prev_kv.as_ref().filter(|_| with_prev) {
        key_value(&mut out, hex, "Prev", prev);
    }
    out
}

pub fn del(hex: bool, resp: &DeleteRangeResponse, with_prev: bool) -> String {
    let mut out = String::new();
    header(&mut out, hex, &resp.header);
    out.push_str(&format!("\"Deleted\" : {}\n", resp.deleted));
    if with_prev {
        for kv in &resp.prev_kvs {
            key_value(&mut out, hex, "Prev", kv);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_print_as_etcdctls() {
        let resp = RangeResponse {
            header: ResponseHeader {
                cluster_id: 1,
                member_id: 2,
                revision: 9,
                raft_term: 3,
            },
            kvs: vec![KeyValue {
                key: "/k".into(),
                create_revision: 4,
                mod_revision: 9,
                version: 2,
                value: "{\"a\":\"b\"}\n".into(),
                lease: 0,
            }],
            more: false,
            count: 1,
        };
        assert_eq!(
            get(false, &resp),
            "\"ClusterID\" : 1\n\"MemberID\" : 2\n\"Revision\" : 9\n\"RaftTerm\" : 3\n\"Key\" : \"/k\"\n\"CreateRevision\" : 4\n\"ModRevision\" : 9\n\"Version\" : 2\n\"Value\" : \"{\\\"a\\\":\\\"b\\\"}\\n\"\n\"Lease\" : 0\n\"More\" : false\n\"Count\" : 1\n"
        );
    }
}
