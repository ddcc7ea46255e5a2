//! Sets of field paths, the vocabulary of server-side apply (structured-merge-diff's
//! `fieldpath.Set`): which fields of an object a manager owns, written in `managedFields` as
//! `FieldsV1` — a trie in JSON where `f:<name>` is a field, `k:{"name":"nginx"}` an item of a
//! list keyed by its merge keys, `v:<json>` an item of a set, `i:<n>` a list position, and `.`
//! marks the node itself as a member (`{"f:labels":{".":{},"f:app":{}}}`).
//!
//! Also the three walks apply needs over an object's JSON, each guided by the kind's list
//! types ([`ListTypes`]): the set of fields a configuration names ([`to_field_set`]), what one
//! version changed against another ([`compare`]: added, modified, removed, as
//! `typed.Comparison`), and the removal of owned subtrees ([`remove_items`]). Conflict messages
//! print paths the way `fieldpath.Path.String` does: `.spec.replicas`,
//! `.spec.containers[name="nginx"].image`.

use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// One step of a path (`fieldpath.PathElement`), in the trie's order: fields, then keyed
/// items, then set values, then positions.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PathElement {
    /// `f:<name>`: a field of a struct or a key of a map.
    Field(String),
    /// `k:<json>`: an associative-list item by its key fields, as a JSON object with sorted
    /// names (`{"containerPort":80,"protocol":"TCP"}`).
    Key(String),
    /// `v:<json>`: a set item by its value.
    Value(String),
    /// `i:<n>`: a list item by position.
    Index(usize),
}

impl PathElement {
    /// The FieldsV1 key (`f:spec`).
    fn encode(&self) -> String {
        match self {
            PathElement::Field(f) => format!("f:{f}"),
            PathElement::Key(k) => format!("k:{k}"),
            PathElement::Value(v) => format!("v:{v}"),
            PathElement::Index(i) => format!("i:{i}"),
        }
    }

    fn decode(text: &str) -> Option<PathElement> {
        let (tag, rest) = text.split_at_checked(2)?;
        match tag {
            "f:" => Some(PathElement::Field(rest.to_string())),
            "k:" => {
                // Normalized, so equal keys compare equal whatever the writer's spacing.
                let v: Value = serde_json::from_str(rest).ok()?;
                Some(PathElement::Key(key_json(v.as_object()?.iter())))
            }
            "v:" => {
                let v: Value = serde_json::from_str(rest).ok()?;
                Some(PathElement::Value(v.to_string()))
            }
            "i:" => rest.parse().ok().map(PathElement::Index),
            _ => None,
        }
    }
}

/// `value.ToString`: strings quoted as Go's `%q`, numbers and booleans bare.
fn go_value(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s:?}"),
        Value::Null => "null".to_string(),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(go_value).collect();
            format!("[{}]", parts.join(","))
        }
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| format!("{k}={}", go_value(v)))
            .collect(),
        other => other.to_string(),
    }
}

impl std::fmt::Display for PathElement {
    /// `fieldpath.PathElement.String`: `.name`, `[name="nginx"]`, `[="x"]`, `[0]`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PathElement::Field(name) => write!(f, ".{name}"),
            PathElement::Key(k) => {
                let fields: Map<String, Value> = serde_json::from_str(k).unwrap_or_default();
                let parts: Vec<String> = fields
                    .iter()
                    .map(|(name, v)| format!("{name}={}", go_value(v)))
                    .collect();
                write!(f, "[{}]", parts.join(","))
            }
            PathElement::Value(v) => {
                let v: Value = serde_json::from_str(v).unwrap_or(Value::Null);
                write!(f, "[={}]", go_value(&v))
            }
            PathElement::Index(i) => write!(f, "[{i}]"),
        }
    }
}

/// A path printed as `fieldpath.Path.String` does (`.spec.replicas`).
pub fn path_string(path: &[PathElement]) -> String {
    let mut out = String::new();
    for pe in path {
        let _ = write!(out, "{pe}");
    }
    out
}

/// A key object's JSON with its names sorted (whatever order the map iterates in).
fn key_json<'a>(fields: impl Iterator<Item = (&'a String, &'a Value)>) -> String {
    let sorted: BTreeMap<&String, &Value> = fields.collect();
    let parts: Vec<String> = sorted
        .iter()
        .map(|(k, v)| format!("{}:{v}", Value::String((*k).clone())))
        .collect();
    format!("{{{}}}", parts.join(","))
}

/// The list and map types of a kind's schema, by path (field names from the object's root,
/// list items skipped: `["spec", "containers", "ports"]`).
pub trait ListTypes {
    /// The key fields of the associative list at `path`; `None`: the list is atomic (replaced
    /// and owned as a whole).
    fn list_keys(&self, path: &[&str]) -> Option<Vec<&'static str>>;
    /// Whether the object at `path` is atomic (`+structType=atomic`, like `LabelSelector`).
    /// Asked at every object a walk visits, so it takes the path as it is (its field names are
    /// [`field_names`]) rather than a list built for the question.
    fn atomic_map(&self, path: &[PathElement]) -> bool;
}

/// The `k:` element naming `item` in a list with `keys`; `None` when it lacks one of them.
fn item_element(item: &Value, keys: &[&str]) -> Option<PathElement> {
    let obj = item.as_object()?;
    let mut fields = Vec::with_capacity(keys.len());
    for k in keys {
        let (name, v) = obj.get_key_value(*k)?;
        fields.push((name, v));
    }
    Some(PathElement::Key(key_json(fields.into_iter())))
}

/// The element naming `item`, its position when it lacks a key (apply refuses such items
/// first: [`missing_key`]).
fn element_or_index(item: &Value, keys: &[&str], index: usize) -> PathElement {
    item_element(item, keys).unwrap_or(PathElement::Index(index))
}

/// A set of paths: a trie whose nodes may be members.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldSet {
    /// `.`: this node's own path is in the set.
    member: bool,
    children: BTreeMap<PathElement, FieldSet>,
}

impl FieldSet {
    pub const EMPTY: FieldSet = FieldSet {
        member: false,
        children: BTreeMap::new(),
    };

    pub fn new() -> Self {
        FieldSet::default()
    }

    pub fn is_empty(&self) -> bool {
        !self.member && self.children.values().all(FieldSet::is_empty)
    }

    /// Adds `path` (the empty path is the root, never a member).
    pub fn insert(&mut self, path: &[PathElement]) {
        let mut node = self;
        for pe in path {
            node = node.children.entry(pe.clone()).or_default();
        }
        if !path.is_empty() {
            node.member = true;
        }
    }

    pub fn has(&self, path: &[PathElement]) -> bool {
        let mut node = self;
        for pe in path {
            match node.children.get(pe) {
                Some(n) => node = n,
                None => return false,
            }
        }
        node.member
    }

    /// The node at `path`, members or not.
    fn node(&self, path: &[PathElement]) -> Option<&FieldSet> {
        let mut node = self;
        for pe in path {
            node = node.children.get(pe)?;
        }
        Some(node)
    }

    fn prune_empty(&mut self) {
        self.children.retain(|_, c| {
            c.prune_empty();
            c.member || !c.children.is_empty()
        });
    }

    pub fn union(&self, other: &FieldSet) -> FieldSet {
        let mut out = self.clone();
        out.union_with(other);
        out
    }

    pub fn union_with(&mut self, other: &FieldSet) {
        self.member |= other.member;
        for (pe, c) in &other.children {
            self.children.entry(pe.clone()).or_default().union_with(c);
        }
    }

    /// Members of `self` that are not members of `other`.
    pub fn difference(&self, other: &FieldSet) -> FieldSet {
        let mut out = FieldSet {
            member: self.member && !other.member,
            children: BTreeMap::new(),
        };
        for (pe, c) in &self.children {
            let d = match other.children.get(pe) {
                Some(o) => c.difference(o),
                None => c.clone(),
            };
            if !d.is_empty() {
                out.children.insert(pe.clone(), d);
            }
        }
        out
    }

    /// Whether every member of `other` is a member of `self`.
    pub fn contains_all(&self, other: &FieldSet) -> bool {
        (!other.member || self.member)
            && other
                .children
                .iter()
                .all(|(pe, o)| match self.children.get(pe) {
                    Some(c) => c.contains_all(o),
                    None => o.is_empty(),
                })
    }

    /// Whether `self` and `other` share a member.
    pub fn intersects(&self, other: &FieldSet) -> bool {
        (self.member && other.member)
            || self
                .children
                .iter()
                .any(|(pe, c)| other.children.get(pe).is_some_and(|o| c.intersects(o)))
    }

    /// Members of both.
    pub fn intersection(&self, other: &FieldSet) -> FieldSet {
        let mut out = FieldSet {
            member: self.member && other.member,
            children: BTreeMap::new(),
        };
        for (pe, c) in &self.children {
            if let Some(o) = other.children.get(pe) {
                let i = c.intersection(o);
                if !i.is_empty() {
                    out.children.insert(pe.clone(), i);
                }
            }
        }
        out
    }

    /// The topmost nodes of `self` (members or not) with no node at all in `other`: what a
    /// manager's former fields hold that nobody owns any more (every field counted as a
    /// member, as `EnsureNamedFieldsAreMembers` makes them).
    pub fn unowned_by(&self, other: &FieldSet) -> FieldSet {
        let mut out = FieldSet::new();
        for (pe, c) in &self.children {
            match other.children.get(pe) {
                None => {
                    out.children.insert(
                        pe.clone(),
                        FieldSet {
                            member: true,
                            children: BTreeMap::new(),
                        },
                    );
                }
                Some(o) => {
                    let inner = c.unowned_by(o);
                    if !inner.is_empty() {
                        out.children.insert(pe.clone(), inner);
                    }
                }
            }
        }
        out
    }

    /// Makes the node at `path` a non-member (its children stay).
    pub fn unmark(&mut self, path: &[PathElement]) {
        let mut node = &mut *self;
        for pe in path {
            match node.children.get_mut(pe) {
                Some(n) => node = n,
                None => return,
            }
        }
        node.member = false;
        self.prune_empty();
    }

    /// Removes the fields named in `names` (members and subtrees) from the node at the field
    /// path `fields` (this node for none), looked up without building path elements; emptied
    /// nodes stay until the next prune ([`FieldSet::unmark`] prunes).
    pub fn remove_fields(&mut self, fields: &[&str], names: &[&str]) {
        let mut node = &mut *self;
        for field in fields {
            let child = node
                .children
                .iter_mut()
                .find(|(pe, _)| matches!(pe, PathElement::Field(f) if f == field));
            match child {
                Some((_, n)) => node = n,
                None => return,
            }
        }
        node.children
            .retain(|pe, _| !matches!(pe, PathElement::Field(f) if names.contains(&f.as_str())));
    }

    /// Removes the subtree at `path` (members and all).
    pub fn remove_subtree(&mut self, path: &[PathElement]) {
        let Some((last, parents)) = path.split_last() else {
            *self = FieldSet::new();
            return;
        };
        let mut node = &mut *self;
        for pe in parents {
            match node.children.get_mut(pe) {
                Some(n) => node = n,
                None => return,
            }
        }
        node.children.remove(last);
        self.prune_empty();
    }

    /// Only the subtree at `path` (with its prefix).
    pub fn only_subtree(&self, path: &[PathElement]) -> FieldSet {
        let mut out = FieldSet::new();
        if let Some(n) = self.node(path) {
            let mut slot = &mut out;
            for pe in path {
                slot = slot.children.entry(pe.clone()).or_default();
            }
            *slot = n.clone();
        }
        out
    }

    /// Every member path, in the trie's order.
    pub fn paths(&self) -> Vec<Vec<PathElement>> {
        let mut out = Vec::new();
        let mut prefix = Vec::new();
        self.collect_paths(&mut prefix, &mut out);
        out
    }

    fn collect_paths(&self, prefix: &mut Vec<PathElement>, out: &mut Vec<Vec<PathElement>>) {
        if self.member {
            out.push(prefix.clone());
        }
        for (pe, c) in &self.children {
            prefix.push(pe.clone());
            c.collect_paths(prefix, out);
            prefix.pop();
        }
    }

    /// The `fieldsV1` JSON of this set (as a value; [`serde::Serialize`] writes the same
    /// without building it).
    pub fn to_fields_v1(&self) -> Value {
        serde_json::to_value(self).unwrap_or_default()
    }

    /// The set a `fieldsV1` JSON describes; `None` when it is not one.
    pub fn from_fields_v1(v: &Value) -> Option<FieldSet> {
        let mut set = FieldSet::new();
        set.read_node(v.as_object()?, 0)?;
        Some(set)
    }

    fn read_node(&mut self, m: &Map<String, Value>, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        for (k, v) in m {
            if k == "." {
                self.member = true;
                continue;
            }
            let pe = PathElement::decode(k)?;
            let child = self.children.entry(pe).or_default();
            let inner = v.as_object()?;
            if inner.is_empty() {
                child.member = true;
            } else {
                child.read_node(inner, depth + 1)?;
            }
        }
        Some(())
    }
}

/// The deepest path the walks follow (objects nest far less; a bound against hostile input).
const MAX_DEPTH: usize = 64;

/// Names of the fields on `path`, for the schema's lookups (list items skipped).
fn names(path: &[PathElement]) -> Vec<&str> {
    field_names(path).collect()
}

/// The field names along `path`, list items left out (`spec`, `containers`, `ports` for
/// `.spec.containers[name=web].ports`).
pub fn field_names(path: &[PathElement]) -> impl Iterator<Item = &str> {
    path.iter().filter_map(|pe| match pe {
        PathElement::Field(f) => Some(f.as_str()),
        _ => None,
    })
}

/// `TypedValue.ToFieldSet`: every field `value` sets — scalars, atomic lists and maps as
/// leaves, keyed list items as members with their fields, empty objects and nulls as leaves.
pub fn to_field_set(value: &Value, types: &dyn ListTypes) -> FieldSet {
    let mut set = FieldSet::new();
    let mut path = Vec::new();
    field_set_walk(value, types, &mut path, &mut set);
    set
}

fn field_set_walk(
    value: &Value,
    types: &dyn ListTypes,
    path: &mut Vec<PathElement>,
    set: &mut FieldSet,
) {
    if path.len() > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(m) => {
            if !path.is_empty() && types.atomic_map(path) {
                set.insert(path);
                return;
            }
            for (k, child) in m {
                path.push(PathElement::Field(k.clone()));
                field_set_walk(child, types, path, set);
                if child.is_null() || child.as_object().is_some_and(Map::is_empty) {
                    set.insert(path);
                }
                path.pop();
            }
        }
        Value::Array(items) => match types.list_keys(&names(path)) {
            Some(keys) => {
                for (i, item) in items.iter().enumerate() {
                    path.push(element_or_index(item, &keys, i));
                    field_set_walk(item, types, path, set);
                    set.insert(path);
                    path.pop();
                }
            }
            None => set.insert(path),
        },
        _ => set.insert(path),
    }
}

/// What changed between two versions (`typed.Comparison`): `added` holds every new node (so
/// an added subtree is owned down to its leaves and by its own path), `modified` the leaves
/// whose value changed, `removed` every node that went.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Comparison {
    pub added: FieldSet,
    pub modified: FieldSet,
    pub removed: FieldSet,
}

impl Comparison {
    pub fn is_same(&self) -> bool {
        self.added.is_empty() && self.modified.is_empty() && self.removed.is_empty()
    }

    /// Added or modified: what a writer now sets.
    pub fn changed(&self) -> FieldSet {
        self.added.union(&self.modified)
    }
}

/// Compares `old` with `new`, both whole objects' JSON, skipping what `ignore` names (paths
/// the field manager never tracks: `metadata.resourceVersion`, `metadata.managedFields`...).
pub fn compare(
    old: &Value,
    new: &Value,
    types: &dyn ListTypes,
    ignore: &dyn Fn(&[PathElement]) -> bool,
) -> Comparison {
    let mut c = Comparison::default();
    let mut path = Vec::new();
    compare_walk(Some(old), Some(new), types, ignore, &mut path, &mut c);
    c
}

fn compare_walk(
    l: Option<&Value>,
    r: Option<&Value>,
    types: &dyn ListTypes,
    ignore: &dyn Fn(&[PathElement]) -> bool,
    path: &mut Vec<PathElement>,
    c: &mut Comparison,
) {
    if path.len() > MAX_DEPTH || ignore(path) {
        return;
    }
    if let (Some(a), Some(b)) = (l, r) {
        if a == b {
            return;
        }
    }
    // Structured on every side present, and not empty on both (empty ones compare as leaves).
    let all = |f: fn(&Value) -> bool| l.is_none_or(f) && r.is_none_or(f);
    let empty = |v: &Value| match v {
        Value::Object(m) => m.is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => true,
    };
    let both_empty = l.is_none_or(empty) && r.is_none_or(empty);
    if all(Value::is_object) && !both_empty && (path.is_empty() || !types.atomic_map(path)) {
        let lm = l.and_then(Value::as_object);
        let rm = r.and_then(Value::as_object);
        // Each field on either side once: the old side's, then those only the new one has (the
        // sets the walk fills keep their own order).
        let old_fields = lm
            .into_iter()
            .flatten()
            .map(|(k, v)| (k, Some(v), rm.and_then(|m| m.get(k))));
        let new_fields = rm
            .into_iter()
            .flatten()
            .filter(|(k, _)| !lm.is_some_and(|m| m.contains_key(*k)))
            .map(|(k, v)| (k, None, Some(v)));
        for (k, lc, rc) in old_fields.chain(new_fields) {
            path.push(PathElement::Field(k.clone()));
            compare_walk(lc, rc, types, ignore, path, c);
            path.pop();
        }
        mark_node(l, r, path, c);
        return;
    }
    if all(Value::is_array) && !both_empty {
        if let Some(keys) = types.list_keys(&names(path)) {
            let index = |v: Option<&'_ Value>| -> Vec<(PathElement, usize)> {
                let items = v
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                    .unwrap_or_default();
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| (element_or_index(item, &keys, i), i))
                    .collect()
            };
            let lmap: BTreeMap<PathElement, usize> = index(l).into_iter().collect();
            let rmap: BTreeMap<PathElement, usize> = index(r).into_iter().collect();
            let all_items: BTreeSet<&PathElement> = lmap.keys().chain(rmap.keys()).collect();
            for pe in all_items {
                let lc = lmap.get(pe).and_then(|i| l.and_then(|v| v.get(*i)));
                let rc = rmap.get(pe).and_then(|i| r.and_then(|v| v.get(*i)));
                path.push(pe.clone());
                compare_walk(lc, rc, types, ignore, path, c);
                path.pop();
            }
            mark_node(l, r, path, c);
            return;
        }
    }
    match (l, r) {
        (None, Some(_)) => c.added.insert(path),
        (Some(_), None) => c.removed.insert(path),
        (Some(a), Some(b)) if a != b => c.modified.insert(path),
        _ => {}
    }
}

/// A structured node that appeared or went (its children were walked already).
fn mark_node(l: Option<&Value>, r: Option<&Value>, path: &[PathElement], c: &mut Comparison) {
    if path.is_empty() {
        return;
    }
    match (l, r) {
        (None, Some(_)) => c.added.insert(path),
        (Some(_), None) => c.removed.insert(path),
        _ => {}
    }
}

/// Removes from `value` every member of `set` (its whole subtree), recursing through the
/// non-member nodes (`typed.RemoveItems`).
pub fn remove_items(value: &mut Value, set: &FieldSet, types: &dyn ListTypes) {
    let mut path = Vec::new();
    remove_walk(value, set, types, &mut path);
}

fn remove_walk(
    value: &mut Value,
    set: &FieldSet,
    types: &dyn ListTypes,
    path: &mut Vec<PathElement>,
) {
    if path.len() > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(m) => {
            for (pe, node) in &set.children {
                let PathElement::Field(name) = pe else {
                    continue;
                };
                if node.member {
                    m.remove(name);
                } else if let Some(child) = m.get_mut(name) {
                    path.push(pe.clone());
                    remove_walk(child, node, types, path);
                    path.pop();
                }
            }
        }
        Value::Array(items) => {
            let keys = types.list_keys(&names(path)).unwrap_or_default();
            let mut kept = Vec::with_capacity(items.len());
            for (i, mut item) in std::mem::take(items).into_iter().enumerate() {
                let pe = element_or_index(&item, &keys, i);
                match set.children.get(&pe) {
                    Some(node) if node.member => continue,
                    Some(node) => {
                        path.push(pe);
                        remove_walk(&mut item, node, types, path);
                        path.pop();
                    }
                    None => {}
                }
                kept.push(item);
            }
            *items = kept;
        }
        _ => {}
    }
}

/// `TypedValue.Merge` of an applied configuration into the live object: maps merge field by
/// field, keyed lists item by item (live items in their order, new ones after), anything else
/// — scalars, atomic lists and maps — is replaced by the configuration's; a `null` removes.
pub fn merge(live: &mut Value, config: &Value, types: &dyn ListTypes) {
    let mut path = Vec::new();
    merge_walk(live, config, types, &mut path);
}

fn merge_walk(
    live: &mut Value,
    config: &Value,
    types: &dyn ListTypes,
    path: &mut Vec<PathElement>,
) {
    if path.len() > MAX_DEPTH {
        return;
    }
    let atomic = !path.is_empty() && types.atomic_map(path);
    match (&mut *live, config) {
        (Value::Object(lm), Value::Object(cm)) if !atomic => {
            for (k, cv) in cm {
                if cv.is_null() {
                    lm.remove(k);
                    continue;
                }
                path.push(PathElement::Field(k.clone()));
                match lm.get_mut(k) {
                    Some(lv) => merge_walk(lv, cv, types, path),
                    None => {
                        lm.insert(k.clone(), without_nulls(cv));
                    }
                }
                path.pop();
            }
        }
        (Value::Array(la), Value::Array(ca)) => {
            let Some(keys) = types.list_keys(&names(path)) else {
                *live = without_nulls(config);
                return;
            };
            for (i, citem) in ca.iter().enumerate() {
                let pe = element_or_index(citem, &keys, i);
                let found = la
                    .iter()
                    .enumerate()
                    .position(|(j, l)| element_or_index(l, &keys, j) == pe);
                match found {
                    Some(j) => {
                        path.push(pe);
                        if let Some(l) = la.get_mut(j) {
                            merge_walk(l, citem, types, path);
                        }
                        path.pop();
                    }
                    None => la.push(without_nulls(citem)),
                }
            }
        }
        _ => *live = without_nulls(config),
    }
}

/// `value` with its `null` fields dropped (a null in a configuration means "absent").
fn without_nulls(value: &Value) -> Value {
    match value {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), without_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_nulls).collect()),
        other => other.clone(),
    }
}

/// The first item of a keyed list that lacks a key field, as apply refuses it:
/// `.spec.containers: element 0: associative list with keys has an element that omits key
/// field "name" (and doesn't have default value)`.
pub fn missing_key(value: &Value, types: &dyn ListTypes) -> Option<String> {
    let mut path = Vec::new();
    missing_key_walk(value, types, &mut path)
}

fn missing_key_walk(
    value: &Value,
    types: &dyn ListTypes,
    path: &mut Vec<PathElement>,
) -> Option<String> {
    if path.len() > MAX_DEPTH {
        return None;
    }
    match value {
        Value::Object(m) => {
            if !path.is_empty() && types.atomic_map(path) {
                return None;
            }
            for (k, child) in m {
                path.push(PathElement::Field(k.clone()));
                let found = missing_key_walk(child, types, path);
                path.pop();
                if found.is_some() {
                    return found;
                }
            }
            None
        }
        Value::Array(items) => {
            let keys = types.list_keys(&names(path))?;
            for (i, item) in items.iter().enumerate() {
                if let Some(k) = keys
                    .iter()
                    .find(|k| item.as_object().is_none_or(|o| !o.contains_key(**k)))
                {
                    return Some(format!(
                        "{}: element {i}: associative list with keys has an element that omits key field {k:?} (and doesn't have default value)",
                        path_string(path)
                    ));
                }
                path.push(element_or_index(item, &keys, i));
                let found = missing_key_walk(item, types, path);
                path.pop();
                if found.is_some() {
                    return found;
                }
            }
            None
        }
        _ => None,
    }
}

impl serde::Serialize for FieldSet {
    /// `fieldsV1`: `.` first when the node is a member with children, then each child.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let dot = self.member && !self.children.is_empty();
        let mut m = s.serialize_map(Some(self.children.len() + usize::from(dot)))?;
        if dot {
            m.serialize_entry(".", &FieldSet::EMPTY)?;
        }
        for (pe, c) in &self.children {
            m.serialize_entry(&pe.encode(), c)?;
        }
        m.end()
    }
}
