//! Store-level behaviour: how the layers combine into etcd's observable semantics.

use super::*;

fn store() -> Store<&'static str> {
    Store::new()
}

fn put_op(key: &str, value: &'static str) -> Op<&'static str> {
    Op::Put {
        key: key.into(),
        value,
        lease: None,
    }
}

fn keys(r: &RangeResponse<&'static str>) -> Vec<String> {
    r.kvs.iter().map(|kv| kv.key.to_string()).collect()
}

#[test]
fn a_fresh_store_is_at_revision_one_and_the_first_put_gets_two() {
    let mut s = store();
    assert_eq!((s.revision(), s.compact_revision(), s.len()), (1, 0, 0));
    assert!(s.is_empty());
    assert_eq!(s.put("/a", "x", None), Ok(2));
    let kv = s.get("/a").cloned();
    assert_eq!(
        kv.map(|kv| (kv.create_revision, kv.mod_revision, kv.version)),
        Some((2, 2, 1))
    );
    assert_eq!(s.len(), 1);
}

#[test]
fn updates_bump_version_and_mod_revision_but_keep_create_revision() {
    let mut s = store();
    s.put("/a", "1", None).ok();
    s.put("/b", "1", None).ok();
    s.put("/a", "2", None).ok();
    let kv = s.get("/a").cloned();
    assert_eq!(
        kv.map(|kv| (kv.value, kv.create_revision, kv.mod_revision, kv.version)),
        Some(("2", 2, 4, 2))
    );
    assert_eq!(s.revision(), 4);
}

#[test]
fn delete_then_recreate_resets_version_and_create_revision() {
    let mut s = store();
    s.put("/a", "1", None).ok();
    s.put("/a", "2", None).ok();
    assert_eq!(s.delete("/a"), Some(4));
    assert!(s.get("/a").is_none());
    assert_eq!(s.len(), 0);
    assert_eq!(s.put("/a", "3", None), Ok(5));
    let kv = s.get("/a").cloned();
    assert_eq!(kv.map(|kv| (kv.create_revision, kv.version)), Some((5, 1)));
}

#[test]
fn deleting_a_missing_key_writes_nothing() {
    let mut s = store();
    assert_eq!(s.delete("/nope"), None);
    assert_eq!(s.revision(), 1);
    assert_eq!(s.history_len(), 0);
    s.put("/a", "1", None).ok();
    s.delete("/a");
    assert_eq!(s.delete("/a"), None);
    assert_eq!(s.revision(), 3);
}

#[test]
fn a_txn_writes_all_its_keys_at_one_revision() {
    let mut s = store();
    s.put("/a", "old", None).ok();
    let r = s.txn(Txn {
        success: vec![
            put_op("/a", "new"),
            put_op("/b", "b"),
            Op::Delete {
                key: "/missing".into(),
            },
            Op::Get { key: "/a".into() },
        ],
        ..Txn::default()
    });
    let r = r.as_ref().ok();
    assert_eq!(r.map(|r| (r.succeeded, r.revision)), Some((true, 3)));
    assert_eq!(s.revision(), 3);
    assert_eq!(
        s.get("/a").map(|kv| (kv.mod_revision, kv.version)),
        Some((3, 2))
    );
    assert_eq!(
        s.get("/b").map(|kv| (kv.mod_revision, kv.version)),
        Some((3, 1))
    );
    let responses = r.map(|r| r.responses.clone()).unwrap_or_default();
    assert!(matches!(&responses[0], OpResponse::Put { prev: Some(p) } if p.value == "old"));
    assert!(matches!(&responses[1], OpResponse::Put { prev: None }));
    assert!(matches!(
        &responses[2],
        OpResponse::Delete { deleted: None }
    ));
    assert!(
        matches!(&responses[3], OpResponse::Get(Some(kv)) if kv.value == "new"),
        "a get sees the txn's earlier writes"
    );
    let events = s.events_at(3);
    assert_eq!(events.len(), 2);
    assert_eq!(events[0].kv.key.as_ref(), "/a");
    assert_eq!(events[1].kv.key.as_ref(), "/b");
}

#[test]
fn a_read_only_txn_keeps_the_revision() {
    let mut s = store();
    s.put("/a", "1", None).ok();
    let r = s.txn(Txn {
        success: vec![
            Op::Get { key: "/a".into() },
            Op::Delete { key: "/zz".into() },
        ],
        ..Txn::default()
    });
    assert_eq!(r.map(|r| r.revision), Ok(2));
    assert_eq!(s.revision(), 2);
}

#[test]
fn compare_and_swap_picks_the_branch() {
    let mut s = store();
    s.put("/a", "1", None).ok();
    let cas = |expected_mod: u64, value: &'static str| Txn {
        compare: vec![Compare::new(
            "/a",
            CompareTarget::ModRevision,
            CompareOp::Equal,
            expected_mod,
        )],
        success: vec![put_op("/a", value)],
        failure: vec![Op::Get { key: "/a".into() }],
    };
    let won = s.txn(cas(2, "2"));
    assert_eq!(
        won.as_ref().map(|r| (r.succeeded, r.revision)),
        Ok((true, 3))
    );
    let lost = s.txn(cas(2, "lost"));
    assert_eq!(
        lost.as_ref().map(|r| (r.succeeded, r.revision)),
        Ok((false, 3))
    );
    let current = lost.ok().and_then(|r| match r.responses.first() {
        Some(OpResponse::Get(kv)) => kv.clone(),
        _ => None,
    });
    assert_eq!(current.map(|kv| kv.value), Some("2"));
    // Create-if-absent, as the API server's create does.
    let create = |key: &str| Txn {
        compare: vec![Compare::new(
            key,
            CompareTarget::ModRevision,
            CompareOp::Equal,
            0,
        )],
        success: vec![put_op(key, "c")],
        failure: vec![],
    };
    assert_eq!(s.txn(create("/new")).map(|r| r.succeeded), Ok(true));
    assert_eq!(s.txn(create("/new")).map(|r| r.succeeded), Ok(false));
}

#[test]
fn a_refused_txn_changes_nothing() {
    let mut s = store();
    s.put("/a", "1", None).ok();
    let dup = s.txn(Txn {
        success: vec![
            put_op("/b", "b"),
            put_op("/a", "2"),
            Op::Delete { key: "/a".into() },
        ],
        ..Txn::default()
    });
    assert_eq!(
        dup.map(|r| r.revision),
        Err(StoreError::DuplicateKey("/a".into()))
    );
    let no_lease = s.txn(Txn {
        success: vec![
            put_op("/b", "b"),
            Op::Put {
                key: "/c".into(),
                value: "c",
                lease: Some(42),
            },
        ],
        ..Txn::default()
    });
    assert_eq!(
        no_lease.map(|r| r.revision),
        Err(StoreError::LeaseNotFound(42))
    );
    assert_eq!(s.revision(), 2);
    assert!(s.get("/b").is_none());
    assert_eq!(s.history_len(), 1);
}

#[test]
fn range_reads_a_prefix_with_limit_count_and_continue() {
    let mut s = store();
    for key in [
        "/pods/a/1",
        "/pods/a/2",
        "/pods/a/3",
        "/pods/b/1",
        "/pods/a",
    ] {
        s.put(key, "v", None).ok();
    }
    let page = s.range_prefix("/pods/a/", None, None, Some(2));
    let page = page.as_ref().ok();
    assert_eq!(
        page.map(keys),
        Some(vec!["/pods/a/1".into(), "/pods/a/2".into()])
    );
    assert_eq!(
        page.map(|p| (p.more, p.count, p.revision)),
        Some((true, 3, 6))
    );
    let rest = s.range_prefix("/pods/a/", Some("/pods/a/2"), None, Some(2));
    let rest = rest.as_ref().ok();
    assert_eq!(rest.map(keys), Some(vec!["/pods/a/3".into()]));
    assert_eq!(rest.map(|p| (p.more, p.count)), Some((false, 1)));
    let all = s.range_prefix("", None, None, Some(0));
    assert_eq!(
        all.map(|p| (p.kvs.len(), p.more)),
        Ok((5, false)),
        "limit 0 = unlimited"
    );
}

#[test]
fn range_at_a_past_revision_reads_history() {
    let mut s = store();
    s.put("/a", "1", None).ok(); // 2
    s.put("/b", "1", None).ok(); // 3
    s.put("/a", "2", None).ok(); // 4
    s.delete("/b"); // 5
    let at = |rev| {
        s.range_prefix("/", None, Some(rev), None).map(|r| {
            r.kvs
                .iter()
                .map(|kv| (kv.key.to_string(), kv.value))
                .collect::<Vec<_>>()
        })
    };
    assert_eq!(at(1), Ok(vec![]));
    assert_eq!(at(2), Ok(vec![("/a".into(), "1")]));
    assert_eq!(at(3), Ok(vec![("/a".into(), "1"), ("/b".into(), "1")]));
    assert_eq!(at(4), Ok(vec![("/a".into(), "2"), ("/b".into(), "1")]));
    assert_eq!(at(5), Ok(vec![("/a".into(), "2")]));
    assert_eq!(
        at(6),
        Err(StoreError::FutureRevision {
            requested: 6,
            current: 5
        })
    );
    assert_eq!(
        at(6).err().map(|e| e.to_string()).as_deref(),
        Some("mvcc: required revision is a future revision")
    );
}

#[test]
fn compaction_keeps_reads_at_and_after_its_revision() {
    let mut s = store();
    s.put("/a", "1", None).ok(); // 2
    s.put("/b", "1", None).ok(); // 3
    s.put("/a", "2", None).ok(); // 4
    s.delete("/b"); // 5
    s.put("/c", "1", None).ok(); // 6
    assert_eq!(s.compact(5), Ok(()));
    assert_eq!(s.compact_revision(), 5);
    assert_eq!(s.history_len(), 1);
    let at = |rev| s.range_prefix("/", None, Some(rev), None).map(|r| keys(&r));
    assert_eq!(at(5), Ok(vec!["/a".into()]));
    assert_eq!(at(6), Ok(vec!["/a".into(), "/c".into()]));
    let err = at(4);
    assert_eq!(
        err,
        Err(StoreError::Compacted {
            requested: 4,
            compact_revision: 5
        })
    );
    assert_eq!(
        err.err().map(|e| e.to_string()).as_deref(),
        Some("mvcc: required revision has been compacted")
    );
    assert_eq!(s.get("/a").map(|kv| (kv.value, kv.version)), Some(("2", 2)));
    assert_eq!(s.put("/a", "3", None), Ok(7));
    assert_eq!(
        s.get("/a").map(|kv| (kv.create_revision, kv.version)),
        Some((2, 3))
    );
}

#[test]
fn compaction_refuses_old_and_future_revisions() {
    let mut s = store();
    s.put("/a", "1", None).ok();
    s.put("/a", "2", None).ok();
    assert_eq!(
        s.compact(4),
        Err(StoreError::FutureRevision {
            requested: 4,
            current: 3
        })
    );
    assert_eq!(s.compact(3), Ok(()));
    assert_eq!(
        s.compact(3),
        Err(StoreError::Compacted {
            requested: 3,
            compact_revision: 3
        })
    );
    assert_eq!(
        s.compact(2),
        Err(StoreError::Compacted {
            requested: 2,
            compact_revision: 3
        })
    );
}

#[test]
fn events_after_filters_by_prefix_and_honours_compaction() {
    let mut s = store();
    s.put("/pods/a", "1", None).ok(); // 2
    s.put("/nodes/n", "1", None).ok(); // 3
    s.put("/pods/a", "2", None).ok(); // 4
    s.delete("/pods/a"); // 5
    fn revs(
        s: &Store<&'static str>,
        after: Revision,
    ) -> Result<Vec<(Revision, EventType)>, StoreError> {
        s.events_after("/pods/", after).map(|evs| {
            evs.iter()
                .map(|e| (e.kv.mod_revision, e.kind))
                .collect::<Vec<_>>()
        })
    }
    assert_eq!(
        revs(&s, 0),
        Ok(vec![
            (2, EventType::Put),
            (4, EventType::Put),
            (5, EventType::Delete)
        ])
    );
    assert_eq!(revs(&s, 4), Ok(vec![(5, EventType::Delete)]));
    assert_eq!(revs(&s, 9), Ok(vec![]));
    s.compact(3).ok();
    assert_eq!(
        revs(&s, 2),
        Err(StoreError::Compacted {
            requested: 2,
            compact_revision: 3
        })
    );
    assert_eq!(revs(&s, 3).map(|v| v.len()), Ok(2));
}

#[test]
fn prev_kv_survives_the_compaction_of_the_write_it_names() {
    // The event keeps only the position of the state before it; once that write is compacted
    // the store still answers from the state it kept at the compaction revision.
    let mut s = store();
    s.put("/a", "first", None).ok(); // 2
    s.put("/b", "x", None).ok(); // 3
    s.put("/c", "gone", None).ok(); // 4
    assert_eq!(s.compact(4), Ok(()));
    s.put("/a", "second", None).ok(); // 5
    s.delete("/c"); // 6
    fn prev_value(s: &Store<&'static str>, rev: Revision) -> Option<(&'static str, Revision)> {
        let event = s.events_at(rev).first()?;
        s.prev_kv(event).map(|p| (p.value, p.mod_revision))
    }
    assert_eq!(prev_value(&s, 5), Some(("first", 2)));
    assert_eq!(prev_value(&s, 6), Some(("gone", 4)));
    s.put("/b", "y", None).ok(); // 7
    assert_eq!(s.compact(6), Ok(()));
    assert_eq!(
        prev_value(&s, 7),
        Some(("x", 3)),
        "kept across a second compaction"
    );
}

#[test]
fn a_delete_event_carries_the_last_value_and_the_prior_state() {
    let mut s = store();
    s.put("/a", "1", None).ok();
    s.put("/a", "last", None).ok();
    s.delete("/a");
    let event = s.events_at(4).first().cloned();
    let event = event.as_ref();
    assert_eq!(event.map(|e| e.kind), Some(EventType::Delete));
    assert_eq!(
        event.map(|e| (e.kv.value, e.kv.mod_revision)),
        Some(("last", 4))
    );
    let prev = event.and_then(|e| s.prev_kv(e));
    assert_eq!(prev.map(|p| (p.mod_revision, p.version)), Some((3, 2)));
    let update = s
        .events_at(3)
        .first()
        .and_then(|e| s.prev_kv(e))
        .map(|p| p.value);
    assert_eq!(update, Some("1"));
}

#[test]
fn invalid_keys_are_refused() {
    let mut s = store();
    assert_eq!(s.put("", "v", None), Err(StoreError::EmptyKey));
    assert_eq!(
        s.put("", "v", None).err().map(|e| e.to_string()).as_deref(),
        Some("etcdserver: key is not provided")
    );
    assert_eq!(s.delete(""), None);
    assert_eq!(s.revision(), 1);
}

#[test]
fn lease_expiry_deletes_attached_keys_in_one_revision() {
    let mut s = store();
    let lease = s.lease_grant(60_000, Timestamp::from_millis(0));
    s.put("/ev/1", "a", Some(lease)).ok(); // 2
    s.put("/ev/2", "b", Some(lease)).ok(); // 3
    s.put("/keep", "c", None).ok(); // 4
    assert_eq!(s.next_lease_expiry(), Some(Timestamp::from_millis(60_000)));
    assert!(s.expire_leases(Timestamp::from_millis(59_999)).is_empty());
    assert_eq!(s.expire_leases(Timestamp::from_millis(60_000)), [lease]);
    assert_eq!(s.revision(), 5);
    assert_eq!(s.events_at(5).len(), 2);
    assert!(s.get("/ev/1").is_none() && s.get("/ev/2").is_none());
    assert!(s.get("/keep").is_some());
    assert_eq!(s.next_lease_expiry(), None);
    assert_eq!(s.lease_revoke(lease), Err(StoreError::LeaseNotFound(lease)));
}

#[test]
fn keep_alive_extends_a_lease() {
    let mut s = store();
    let lease = s.lease_grant(10_000, Timestamp::from_millis(0));
    s.put("/k", "v", Some(lease)).ok();
    assert_eq!(
        s.lease_keep_alive(lease, Timestamp::from_millis(8_000)),
        Ok(())
    );
    assert!(s.expire_leases(Timestamp::from_millis(10_000)).is_empty());
    assert!(s.get("/k").is_some());
    assert_eq!(s.expire_leases(Timestamp::from_millis(18_000)), [lease]);
    assert!(s.get("/k").is_none());
    assert_eq!(
        s.lease_keep_alive(lease, Timestamp::from_millis(18_000)),
        Err(StoreError::LeaseNotFound(lease))
    );
}

#[test]
fn unknown_and_expired_leases_are_not_found() {
    let mut s = store();
    assert_eq!(s.lease_revoke(7), Err(StoreError::LeaseNotFound(7)));
    assert_eq!(
        s.lease_revoke(7).err().map(|e| e.to_string()).as_deref(),
        Some("etcdserver: requested lease not found")
    );
    assert_eq!(
        s.lease_keep_alive(7, Timestamp::from_millis(0)),
        Err(StoreError::LeaseNotFound(7))
    );
    assert_eq!(s.put("/k", "v", Some(7)), Err(StoreError::LeaseNotFound(7)));
    let lease = s.lease_grant(5_000, Timestamp::from_millis(0));
    assert_eq!(
        s.lease_keep_alive(lease, Timestamp::from_millis(5_000)),
        Err(StoreError::LeaseNotFound(lease))
    );
}

#[test]
fn revoking_writes_only_if_keys_were_attached() {
    let mut s = store();
    let empty = s.lease_grant(5_000, Timestamp::from_millis(0));
    assert_eq!(s.lease_revoke(empty), Ok(None));
    assert_eq!(s.revision(), 1);
    let lease = s.lease_grant(5_000, Timestamp::from_millis(0));
    s.put("/k", "v", Some(lease)).ok();
    assert_eq!(s.lease_revoke(lease), Ok(Some(3)));
}

#[test]
fn rewriting_or_deleting_a_key_detaches_it_from_its_lease() {
    let mut s = store();
    let first = s.lease_grant(5_000, Timestamp::from_millis(0));
    let second = s.lease_grant(50_000, Timestamp::from_millis(0));
    s.put("/moved", "v", Some(first)).ok();
    s.put("/moved", "v", Some(second)).ok();
    s.put("/plain", "v", Some(first)).ok();
    s.put("/plain", "v", None).ok();
    s.put("/gone", "v", Some(first)).ok();
    s.delete("/gone");
    let attached = |id| s.lease(id).map(|l| l.keys.len());
    assert_eq!((attached(first), attached(second)), (Some(0), Some(1)));
    assert_eq!(s.lease_revoke(first), Ok(None));
    assert!(s.get("/moved").is_some() && s.get("/plain").is_some());
    assert_eq!(
        s.get("/moved").and_then(KeyValue::attached_lease),
        Some(second)
    );
}

#[test]
fn expired_leases_are_revoked_in_ascending_id_order_each_its_own_revision() {
    let mut s = store();
    let a = s.lease_grant(9_000, Timestamp::from_millis(0));
    let b = s.lease_grant(3_000, Timestamp::from_millis(0));
    s.put("/a", "v", Some(a)).ok(); // 2
    s.put("/b", "v", Some(b)).ok(); // 3
    assert_eq!(s.expire_leases(Timestamp::from_millis(10_000)), [a, b]);
    assert_eq!(
        s.events_at(4).first().map(|e| e.kv.key.to_string()),
        Some("/a".into())
    );
    assert_eq!(
        s.events_at(5).first().map(|e| e.kv.key.to_string()),
        Some("/b".into())
    );
}

#[test]
fn index_and_history_share_the_key_allocation() {
    let mut s = store();
    s.put("/a", "1", None).ok();
    s.put("/a", "2", None).ok();
    let first = s.events_at(2).first().map(|e| Arc::clone(&e.kv.key));
    let second = s.events_at(3).first().map(|e| Arc::clone(&e.kv.key));
    assert!(matches!((first, second), (Some(x), Some(y)) if Arc::ptr_eq(&x, &y)));
}

#[test]
fn lease_zero_means_no_lease_as_in_etcd() {
    let mut s = store();
    assert_eq!(s.put("/k", "v", Some(0)), Ok(2));
    assert_eq!(s.get("/k").map(KeyValue::attached_lease), Some(None));
}

#[test]
fn the_put_and_delete_shortcuts_match_one_op_txns() {
    let mut by_sugar = store();
    let mut by_txn = store();
    by_sugar.put("/a", "1", None).ok();
    by_sugar.delete("/a");
    by_sugar.put("/a", "2", None).ok();
    for op in [
        put_op("/a", "1"),
        Op::Delete { key: "/a".into() },
        put_op("/a", "2"),
    ] {
        by_txn
            .txn(Txn {
                success: vec![op],
                ..Txn::default()
            })
            .ok();
    }
    assert_eq!(by_sugar.revision(), by_txn.revision());
    assert_eq!(by_sugar.get("/a"), by_txn.get("/a"));
    assert_eq!(by_sugar.history_len(), by_txn.history_len());
}

#[test]
fn paging_stays_exact_when_the_next_page_reuses_the_count() {
    let mut s = store();
    for i in 0..10 {
        s.put(&format!("/p/{i}"), "v", None).ok();
    }
    let first = s.range_prefix("/p/", None, None, Some(4));
    let first = first.as_ref().ok();
    assert_eq!(
        first.map(|p| (p.count, p.more, p.kvs.len())),
        Some((10, true, 4))
    );
    let at = first.map(|p| p.revision);
    // A write between pages does not show in a page read at the list's revision.
    s.delete("/p/7");
    s.put("/p/8", "changed", None).ok();
    let second = s.range_prefix("/p/", Some("/p/3"), at, Some(4));
    let second = second.as_ref().ok();
    assert_eq!(second.map(|p| (p.count, p.more)), Some((6, true)));
    assert_eq!(
        second.map(keys),
        Some(vec![
            "/p/4".into(),
            "/p/5".into(),
            "/p/6".into(),
            "/p/7".into()
        ])
    );
    let third = s.range_prefix("/p/", Some("/p/7"), at, Some(4));
    let third = third.as_ref().ok();
    assert_eq!(
        third.map(|p| (p.count, p.more, p.kvs.len())),
        Some((2, false, 2))
    );
    assert_eq!(
        third.and_then(|p| p.kvs.last().map(|kv| kv.value)),
        Some("v")
    );
    // The same continuation at the current revision recounts: /p/7 is gone now.
    let now = s.range_prefix("/p/", Some("/p/3"), None, Some(4));
    assert_eq!(
        now.map(|p| (p.count, keys(&p))),
        Ok((
            5,
            vec!["/p/4".into(), "/p/5".into(), "/p/6".into(), "/p/8".into()]
        ))
    );
}

#[test]
fn the_space_quota_counts_kept_revisions_and_compaction_gives_it_back() {
    let mut s = store();
    let put_cost = |key: &str, value: &str| (key.len() + value.len() + quota::KV_OVERHEAD) as u64;
    assert_eq!(s.put("/a", "1234", None), Ok(2));
    assert_eq!(s.put("/a", "56", None), Ok(3));
    // Both revisions of /a are kept until a compaction.
    let two = put_cost("/a", "1234") + put_cost("/a", "56");
    assert_eq!(s.bytes_in_use(), two);
    // etcd refuses a put that would reach the quota, and writes nothing.
    s.set_quota_bytes(two + put_cost("/b", "x"));
    assert_eq!(s.put("/b", "x", None), Err(StoreError::NoSpace));
    assert_eq!((s.revision(), s.get("/b")), (3, None));
    // A txn is charged its dearer branch, even when the cheaper one runs.
    let txn = Txn {
        compare: vec![Compare::new(
            "/a",
            CompareTarget::Version,
            CompareOp::Equal,
            9,
        )],
        success: vec![put_op("/b", "a long value")],
        failure: vec![Op::Get { key: "/a".into() }],
    };
    assert_eq!(s.txn(txn).err(), Some(StoreError::NoSpace));
    // A delete is always taken (its tombstone is kept, and counted).
    assert_eq!(s.delete("/a"), Some(4));
    assert_eq!(s.bytes_in_use(), two + quota::tombstone_cost("/a") as u64);
    // Compaction drops the superseded writes and the tombstone: the space is back.
    assert_eq!(s.compact(4), Ok(()));
    assert_eq!(s.bytes_in_use(), 0);
    assert_eq!(s.put("/b", "x", None), Ok(5));
    assert_eq!(s.bytes_in_use(), put_cost("/b", "x"));
}

#[test]
fn a_put_beyond_the_request_limit_is_refused_whole() {
    let mut s: Store<Arc<str>> = Store::new();
    let big: Arc<str> = Arc::from("v".repeat(MAX_REQUEST_BYTES - 1));
    assert_eq!(
        s.put("/ab", Arc::clone(&big), None),
        Err(StoreError::RequestTooLarge {
            len: MAX_REQUEST_BYTES + 2,
            limit: MAX_REQUEST_BYTES
        })
    );
    let txn = Txn {
        compare: vec![],
        success: vec![
            Op::Put {
                key: "/small".into(),
                value: Arc::from("x"),
                lease: None,
            },
            Op::Put {
                key: "/ab".into(),
                value: big,
                lease: None,
            },
        ],
        failure: vec![],
    };
    assert!(matches!(
        s.txn(txn),
        Err(StoreError::RequestTooLarge { .. })
    ));
    assert_eq!((s.revision(), s.len(), s.bytes_in_use()), (1, 0, 0));
}

#[test]
fn a_count_only_range_counts_the_live_keys_under_a_prefix() {
    let mut s = store();
    for key in ["/ev/a/1", "/ev/a/2", "/ev/b/1", "/evx/1", "/pods/a/1"] {
        s.put(key, "v", None).ok();
    }
    s.put("/ev/a/1", "again", None).ok();
    s.delete("/ev/b/1");
    // Counted before any range has put the new keys in order, and after.
    assert_eq!(s.count_prefix("/ev/"), 2);
    assert_eq!(s.count_prefix("/ev"), 3);
    let listed = s.range_prefix("/ev/", None, None, None).map(|r| r.count);
    assert_eq!(listed, Ok(2));
    assert_eq!(s.count_prefix("/ev/"), 2);
    assert_eq!(s.count_prefix("/none/"), 0);
}

#[test]
fn a_restored_snapshot_keeps_each_keys_revisions_and_bumps_and_compacts_the_store() {
    let mut s = store();
    s.put("/a", "1", None).unwrap();
    s.put("/b", "1", None).unwrap();
    s.put("/b", "2", None).unwrap();
    let lease = s.lease_grant(60_000, Timestamp::default());
    s.put("/leased", "x", Some(lease)).unwrap();
    let taken = s.revision();
    let snap = s.snapshot(taken).unwrap();
    s.put("/after", "x", None).unwrap();
    s.delete("/a");
    let later = s.revision();

    let now = Timestamp::from_secs(100);
    let r = Store::restored(&snap, 1_000, true, now, DEFAULT_QUOTA_BYTES);
    assert_eq!(r.revision(), taken + 1_000);
    assert_eq!(r.compact_revision(), taken + 1_000);
    let b = r.get("/b").unwrap();
    let was = s.range_prefix("/b", None, Some(taken), None).unwrap().kvs[0].clone();
    assert_eq!(
        (b.create_revision, b.mod_revision, b.version, b.value),
        (was.create_revision, was.mod_revision, 2, "2")
    );
    assert!(r.get("/a").is_some(), "deleted after the snapshot: back");
    assert!(
        r.get("/after").is_none(),
        "written after the snapshot: gone"
    );
    assert_eq!(r.len(), 3);
    assert_eq!(
        r.lease(lease).map(|l| (l.deadline, l.keys.len())),
        Some((now.plus_secs(60), 1)),
        "the lease's TTL starts again, its key attached"
    );
    assert!(
        matches!(r.events_after("", later), Err(StoreError::Compacted { .. })),
        "a watch from before the restore must list again"
    );

    // Without --mark-compacted, such a watch is accepted and waits: nothing tells it that
    // `/after` is gone.
    let r = Store::restored(&snap, 1_000, false, now, DEFAULT_QUOTA_BYTES);
    assert_eq!(r.events_after("", later).unwrap().len(), 0);
    let mut r = r;
    let next = r.put("/new", "x", None).unwrap();
    assert_eq!(next, taken + 1_001);
}
