//! client-go's JSONPath template language (`k8s.io/client-go/util/jsonpath`), shared as in
//! Kubernetes by kubectl (`-o jsonpath`, custom columns, `--sort-by`) and the API server (a custom
//! resource's `additionalPrinterColumns` in its Table), over
//! `serde_json::Value`: `{.metadata.resourceVersion}`, `{.items[*].metadata.name}`, indexes and
//! slices, unions, `{range ...}{end}`, quoted text (`{"\n"}`), filters
//! `[?(@.status.phase=="Running")]`, recursive descent `..`, wildcards and `\.` escapes. Parse and
//! execution errors carry the real texts, because learners copy templates from real docs and
//! need the real diagnostics. Results are computed fully before anything prints, like the
//! original (an error prints nothing but the error).

use crate::gofmt::{go_float, go_plain, go_type};
use serde_json::Value;
use std::cmp::Ordering;
use std::fmt;

/// A jsonpath failure; `Display` gives the message kubectl wraps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonPathError {
    /// The template does not parse: `unclosed action`, `unterminated array`...
    Parse(String),
    /// Evaluation failed: `foo is not found`, `array index out of bounds: ...`.
    Exec(String),
}

impl fmt::Display for JsonPathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonPathError::Parse(m) | JsonPathError::Exec(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for JsonPathError {}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Param {
    value: i64,
    known: bool,
    derived: bool,
}

#[derive(Debug, Clone, PartialEq)]
enum Node {
    Field(String),
    Wildcard,
    Recursive,
    Array([Param; 3]),
    Union(Vec<Vec<Node>>),
    Filter {
        left: Vec<Node>,
        op: String,
        right: Vec<Node>,
    },
    Text(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    Identifier(String),
}

/// One piece of a parsed template.
#[derive(Debug, Clone, PartialEq)]
enum Block {
    Text(String),
    Action(Vec<Node>),
    Range { expr: Vec<Node>, body: Vec<Block> },
    StrayEnd,
}

/// A parsed template.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonPath {
    template: String,
    blocks: Vec<Block>,
}

impl JsonPath {
    /// Parses a template such as `{.items[*].metadata.name}`.
    pub fn parse(template: &str) -> Result<JsonPath, JsonPathError> {
        let mut parser = Parser {
            chars: template.chars().collect(),
            pos: 0,
        };
        let flat = parser.parse_template().map_err(JsonPathError::Parse)?;
        check_range_depth(&flat).map_err(JsonPathError::Parse)?;
        let mut iter = flat.into_iter();
        let blocks = nest(&mut iter, false);
        Ok(JsonPath {
            template: template.to_string(),
            blocks,
        })
    }

    /// The template text as given.
    pub fn template(&self) -> &str {
        &self.template
    }

    /// Runs the template over `data`. `allow_missing` is kubectl's
    /// `--allow-missing-template-keys` (default true): missing fields print nothing.
    pub fn execute(&self, data: &Value, allow_missing: bool) -> Result<String, JsonPathError> {
        let mut out = Vec::new();
        run_blocks(&self.blocks, data, allow_missing, &mut out)?;
        Ok(out.concat())
    }

    /// The values each action yields (for `--sort-by` and custom columns).
    pub fn find(
        &self,
        data: &Value,
        allow_missing: bool,
    ) -> Result<Vec<Vec<Value>>, JsonPathError> {
        let mut found = Vec::new();
        for block in &self.blocks {
            match block {
                Block::Action(nodes) => found.push(walk(vec![data.clone()], nodes, allow_missing)?),
                Block::Text(t) => found.push(vec![Value::String(t.clone())]),
                _ => {}
            }
        }
        Ok(found)
    }
}

/// How deep `{range}` blocks may nest. Real kubectl has no bound (Go's stack grows); here
/// building, running and dropping the nesting recurse once per level on the page's 1 MiB
/// WebAssembly stack, so a template nesting deeper is refused as a parse error. Real templates
/// nest two or three levels.
pub const MAX_RANGE_DEPTH: usize = 64;

fn check_range_depth(flat: &[FlatBlock]) -> Result<(), String> {
    let mut depth = 0usize;
    for b in flat {
        match b {
            FlatBlock::Range(_) => {
                depth += 1;
                if depth > MAX_RANGE_DEPTH {
                    return Err(format!("range nested more than {MAX_RANGE_DEPTH} deep"));
                }
            }
            FlatBlock::End => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// Builds range/end nesting from the flat block list.
fn nest(iter: &mut impl Iterator<Item = FlatBlock>, in_range: bool) -> Vec<Block> {
    let mut out = Vec::new();
    while let Some(b) = iter.next() {
        match b {
            FlatBlock::Text(t) => out.push(Block::Text(t)),
            FlatBlock::Action(nodes) => out.push(Block::Action(nodes)),
            FlatBlock::Range(expr) => {
                let body = nest(iter, true);
                out.push(Block::Range { expr, body });
            }
            FlatBlock::End if in_range => return out,
            FlatBlock::End => out.push(Block::StrayEnd),
        }
    }
    out
}

fn run_blocks(
    blocks: &[Block],
    data: &Value,
    allow_missing: bool,
    out: &mut Vec<String>,
) -> Result<(), JsonPathError> {
    for block in blocks {
        match block {
            Block::Text(t) => out.push(t.clone()),
            Block::Action(nodes) => {
                let results = walk(vec![data.clone()], nodes, allow_missing)?;
                out.push(print_results(&results));
            }
            Block::Range { expr, body } => {
                for item in walk(vec![data.clone()], expr, allow_missing)? {
                    run_blocks(body, &item, allow_missing, out)?;
                }
            }
            Block::StrayEnd => {
                return Err(JsonPathError::Exec("not in range, nothing to end".into()))
            }
        }
    }
    Ok(())
}

/// How one action's results print: strings raw, objects and arrays as compact JSON, joined by
/// spaces.
fn print_results(results: &[Value]) -> String {
    results.iter().map(text_of).collect::<Vec<_>>().join(" ")
}

/// One result as text, the way jsonpath's PrintResults renders it.
pub fn text_of(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::String(s) => s.clone(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.to_string(),
            None => n.as_f64().map(go_float).unwrap_or_else(|| n.to_string()),
        },
        Value::Bool(b) => b.to_string(),
        other => other.to_string(),
    }
}

fn walk(
    mut input: Vec<Value>,
    nodes: &[Node],
    allow_missing: bool,
) -> Result<Vec<Value>, JsonPathError> {
    for node in nodes {
        input = eval(input, node, allow_missing)?;
    }
    Ok(input)
}

fn exec_err(msg: impl Into<String>) -> JsonPathError {
    JsonPathError::Exec(msg.into())
}

fn eval(input: Vec<Value>, node: &Node, allow_missing: bool) -> Result<Vec<Value>, JsonPathError> {
    match node {
        Node::Field(name) => {
            let results: Vec<Value> = input
                .iter()
                .filter_map(|v| v.as_object()?.get(name).cloned())
                .collect();
            if results.is_empty() && !allow_missing {
                return Err(exec_err(format!("{name} is not found")));
            }
            Ok(results)
        }
        Node::Wildcard => Ok(input.iter().flat_map(children).collect()),
        Node::Recursive => {
            let mut out = Vec::new();
            for v in &input {
                descend(v, &mut out);
            }
            Ok(out)
        }
        Node::Array(params) => {
            let mut out = Vec::new();
            for v in input.iter().filter(|v| !v.is_null()) {
                let arr = v
                    .as_array()
                    .ok_or_else(|| exec_err(format!("{} is not array or slice", go_type(v))))?;
                slice(arr, *params, &mut out)?;
            }
            Ok(out)
        }
        Node::Union(lists) => {
            let mut out = Vec::new();
            for list in lists {
                out.extend(walk(input.clone(), list, allow_missing)?);
            }
            Ok(out)
        }
        Node::Filter { left, op, right } => {
            let mut out = Vec::new();
            for v in input.iter().filter(|v| !v.is_null()) {
                let arr = v.as_array().ok_or_else(|| {
                    exec_err(format!(
                        "{} is not array or slice and cannot be filtered",
                        go_plain(v)
                    ))
                })?;
                for item in arr {
                    if filter_passes(item, left, op, right, allow_missing)? {
                        out.push(item.clone());
                    }
                }
            }
            Ok(out)
        }
        Node::Text(t) => Ok(vec![Value::String(t.clone())]),
        Node::Int(i) => Ok(vec![Value::from(*i)]),
        Node::Float(f) => Ok(vec![serde_json::Number::from_f64(*f)
            .map(Value::Number)
            .unwrap_or(Value::Null)]),
        Node::Bool(b) => Ok(vec![Value::Bool(*b)]),
        Node::Identifier(name) => Err(exec_err(format!("unrecognized identifier {name}"))),
    }
}

fn children(v: &Value) -> Vec<Value> {
    match v {
        Value::Object(m) => m.values().cloned().collect(),
        Value::Array(a) => a.clone(),
        _ => Vec::new(),
    }
}

/// Recursive descent: every container reachable from `v`, `v` first, depth first.
fn descend(v: &Value, out: &mut Vec<Value>) {
    let kids = children(v);
    if !kids.is_empty() {
        out.push(v.clone());
        for k in &kids {
            descend(k, out);
        }
    }
}

fn slice(arr: &[Value], mut p: [Param; 3], out: &mut Vec<Value>) -> Result<(), JsonPathError> {
    let len = i64::try_from(arr.len()).unwrap_or(i64::MAX);
    if !p[0].known {
        p[0].value = 0;
    }
    if p[0].value < 0 {
        p[0].value += len;
    }
    if !p[1].known {
        p[1].value = len;
    }
    if p[1].value < 0 || (p[1].value == 0 && p[1].derived) {
        p[1].value += len;
    }
    if p[1].value == p[0].value {
        return Ok(());
    }
    if p[0].value >= len || p[0].value < 0 {
        return Err(exec_err(format!(
            "array index out of bounds: index {}, length {len}",
            p[0].value
        )));
    }
    if p[1].value > len || p[1].value < 0 {
        return Err(exec_err(format!(
            "array index out of bounds: index {}, length {len}",
            p[1].value - 1
        )));
    }
    if p[0].value > p[1].value {
        return Err(exec_err(format!(
            "starting index {} is greater than ending index {}",
            p[0].value, p[1].value
        )));
    }
    let step = if p[2].known {
        if p[2].value <= 0 {
            return Err(exec_err("step must be > 0"));
        }
        p[2].value
    } else {
        1
    };
    let (start, end) = (p[0].value as usize, p[1].value as usize);
    let step = usize::try_from(step).unwrap_or(usize::MAX);
    if let Some(items) = arr.get(start..end) {
        out.extend(items.iter().step_by(step).cloned());
    }
    Ok(())
}

fn filter_passes(
    item: &Value,
    left: &[Node],
    op: &str,
    right: &[Node],
    allow_missing: bool,
) -> Result<bool, JsonPathError> {
    let lefts = walk(vec![item.clone()], left, allow_missing)?;
    if op == "exists" {
        return Ok(!lefts.is_empty());
    }
    let one = |vals: Vec<Value>| -> Result<Option<Value>, JsonPathError> {
        match vals.len() {
            0 => Ok(None),
            1 => Ok(vals.into_iter().next()),
            _ => Err(exec_err("can only compare one element at a time")),
        }
    };
    let Some(l) = one(lefts)? else {
        return Ok(false);
    };
    let Some(r) = one(walk(vec![item.clone()], right, allow_missing)?)? else {
        return Ok(false);
    };
    let ord = || compare(&l, &r);
    match op {
        "==" => equal(&l, &r),
        "!=" => equal(&l, &r).map(|b| !b),
        "<" => Ok(ord()? == Ordering::Less),
        ">" => Ok(ord()? == Ordering::Greater),
        "<=" => Ok(ord()? != Ordering::Greater),
        ">=" => Ok(ord()? != Ordering::Less),
        other => Err(exec_err(format!("unrecognized filter operator {other}"))),
    }
}

/// text/template's `eq`: same basic kind required.
fn equal(l: &Value, r: &Value) -> Result<bool, JsonPathError> {
    match (l, r) {
        (Value::Bool(a), Value::Bool(b)) => Ok(a == b),
        _ => compare(l, r).map(|o| o == Ordering::Equal),
    }
}

/// text/template's `lt`: ints with ints, floats with floats, strings with strings.
fn compare(l: &Value, r: &Value) -> Result<Ordering, JsonPathError> {
    let incompatible = || exec_err("incompatible types for comparison");
    match (l, r) {
        (Value::String(a), Value::String(b)) => Ok(a.cmp(b)),
        (Value::Number(a), Value::Number(b)) => match (a.as_i64(), b.as_i64()) {
            (Some(x), Some(y)) => Ok(x.cmp(&y)),
            (None, None) => {
                let (x, y) = (a.as_f64().unwrap_or(0.0), b.as_f64().unwrap_or(0.0));
                x.partial_cmp(&y).ok_or_else(incompatible)
            }
            _ => Err(incompatible()),
        },
        (Value::Bool(_), Value::Bool(_)) => Err(exec_err("invalid type for comparison")),
        _ => Err(incompatible()),
    }
}

/// The flat parse before range/end nesting.
enum FlatBlock {
    Text(String),
    Action(Vec<Node>),
    Range(Vec<Node>),
    End,
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek();
        if c.is_some() {
            self.pos += 1;
        }
        c
    }

    fn starts_with(&self, s: &str) -> bool {
        (self.pos..)
            .zip(s.chars())
            .all(|(i, c)| self.chars.get(i) == Some(&c))
    }

    fn text(&self, from: usize, to: usize) -> String {
        self.chars
            .get(from..to)
            .map(|c| c.iter().collect())
            .unwrap_or_default()
    }

    fn parse_template(&mut self) -> Result<Vec<FlatBlock>, String> {
        let mut blocks = Vec::new();
        loop {
            let start = self.pos;
            while self.peek().is_some_and(|c| c != '{') {
                self.pos += 1;
            }
            if self.pos > start {
                blocks.push(FlatBlock::Text(self.text(start, self.pos)));
            }
            if self.next().is_none() {
                return Ok(blocks);
            }
            let nodes = self.parse_action()?;
            blocks.push(match nodes.split_first() {
                Some((Node::Identifier(k), rest)) if k == "range" => {
                    FlatBlock::Range(rest.to_vec())
                }
                Some((Node::Identifier(k), [])) if k == "end" => FlatBlock::End,
                _ => FlatBlock::Action(nodes),
            });
        }
    }

    /// Parses nodes up to and including the closing `}`.
    fn parse_action(&mut self) -> Result<Vec<Node>, String> {
        let mut nodes = Vec::new();
        loop {
            if self.starts_with("}") {
                self.pos += 1;
                return Ok(nodes);
            }
            if self.starts_with("[?(") {
                self.pos += 3;
                nodes.push(self.parse_filter()?);
                continue;
            }
            if self.starts_with("..") {
                if nodes.last() == Some(&Node::Recursive) {
                    return Err("invalid multiple recursive descent".into());
                }
                self.pos += 2;
                nodes.push(Node::Recursive);
                if self.peek().is_some_and(is_alphanumeric) {
                    nodes.push(self.parse_field());
                }
                continue;
            }
            match self.next() {
                None | Some('\n') | Some('\r') => return Err("unclosed action".into()),
                Some(' ') | Some('@') | Some('$') => {}
                Some('[') => nodes.push(self.parse_array()?),
                Some(q @ ('"' | '\'')) => nodes.push(self.parse_quote(q)?),
                Some('.') => nodes.push(self.parse_field()),
                Some(c) if c == '+' || c == '-' || c.is_ascii_digit() => {
                    self.pos -= 1;
                    nodes.push(self.parse_number()?);
                }
                Some(c) if is_alphanumeric(c) => {
                    self.pos -= 1;
                    nodes.push(self.parse_identifier());
                }
                Some(c) => {
                    return Err(format!(
                        "unrecognized character in action: U+{:04X} '{c}'",
                        c as u32
                    ))
                }
            }
        }
    }

    fn parse_field(&mut self) -> Node {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c == '\\' {
                self.pos += 2;
                continue;
            }
            if is_terminator(c) {
                break;
            }
            self.pos += 1;
        }
        self.pos = self.pos.min(self.chars.len());
        let value = self.text(start, self.pos);
        if value == "*" {
            Node::Wildcard
        } else {
            Node::Field(value.replace('\\', ""))
        }
    }

    fn parse_array(&mut self) -> Result<Node, String> {
        let start = self.pos;
        loop {
            match self.next() {
                None | Some('\n') | Some('\r') => return Err("unterminated array".into()),
                Some(']') => break,
                Some(_) => {}
            }
        }
        let text = self.text(start, self.pos - 1);
        parse_array_text(&text)
    }

    fn parse_filter(&mut self) -> Result<Node, String> {
        let start = self.pos;
        let (mut begin, mut end, mut pair) = (false, false, '"');
        loop {
            match self.next() {
                None | Some('\n') => return Err("unterminated filter".into()),
                Some(q @ ('"' | '\'')) => {
                    if !begin {
                        begin = true;
                        pair = q;
                    } else if q == pair && self.chars.get(self.pos.wrapping_sub(2)) != Some(&'\\') {
                        end = true;
                    }
                }
                Some(')') if begin == end => break,
                Some(_) => {}
            }
        }
        if self.next() != Some(']') {
            return Err("unclosed array expect ]".into());
        }
        let text = self.text(start, self.pos - 2);
        let op_start = text.find(['!', '<', '>', '=']);
        let split = op_start.filter(|&i| i > 0).and_then(|i| {
            let rest = &text[i..];
            let op_len = rest.find(|c| !"!<>=".contains(c)).unwrap_or(rest.len());
            let (op, right) = rest.split_at(op_len);
            (!right.is_empty()).then(|| (&text[..i], op, right))
        });
        match split {
            None => Ok(Node::Filter {
                left: parse_sub_action(&text)?,
                op: "exists".into(),
                right: Vec::new(),
            }),
            Some((left, op, right)) => Ok(Node::Filter {
                left: parse_sub_action(left)?,
                op: op.to_string(),
                right: parse_sub_action(right)?,
            }),
        }
    }

    fn parse_quote(&mut self, quote: char) -> Result<Node, String> {
        let start = self.pos;
        loop {
            match self.next() {
                None | Some('\n') => return Err("unterminated quoted string".into()),
                Some('\\') => {
                    if matches!(self.next(), None | Some('\n')) {
                        return Err("unterminated quoted string".into());
                    }
                }
                Some(c) if c == quote => break,
                Some(_) => {}
            }
        }
        let raw = self.text(start, self.pos - 1);
        unquote(&raw)
            .map(Node::Text)
            .ok_or_else(|| format!("unquote string {quote}{raw}{quote} error invalid syntax"))
    }

    fn parse_number(&mut self) -> Result<Node, String> {
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_digit() || "+-.eE".contains(c))
        {
            self.pos += 1;
        }
        let text = self.text(start, self.pos);
        if text.contains(['.', 'e', 'E']) {
            text.parse()
                .map(Node::Float)
                .map_err(|_| format!("cannot parse number {text}"))
        } else {
            text.parse()
                .map(Node::Int)
                .map_err(|_| format!("cannot parse number {text}"))
        }
    }

    fn parse_identifier(&mut self) -> Node {
        let start = self.pos;
        while self.peek().is_some_and(is_alphanumeric) {
            self.pos += 1;
        }
        match self.text(start, self.pos).as_str() {
            "true" => Node::Bool(true),
            "false" => Node::Bool(false),
            other => Node::Identifier(other.to_string()),
        }
    }
}

/// Parses `text` as the inside of one action (`{text}`), as the filter operands are.
fn parse_sub_action(text: &str) -> Result<Vec<Node>, String> {
    let mut p = Parser {
        chars: format!("{text}}}").chars().collect(),
        pos: 0,
    };
    let nodes = p.parse_action()?;
    if p.pos < p.chars.len() {
        return Err(format!("invalid filter operand {text}"));
    }
    Ok(nodes)
}

fn parse_array_text(text: &str) -> Result<Node, String> {
    if let Some(key) = text
        .strip_prefix('\'')
        .and_then(|t| t.strip_suffix('\''))
        .filter(|k| !k.contains('\''))
    {
        return parse_sub_action(&format!(".{key}")).map(|mut nodes| match nodes.len() {
            1 => nodes.remove(0),
            _ => Node::Union(vec![nodes]),
        });
    }
    let parts: Vec<&str> = text.split(',').collect();
    if parts.len() > 1 {
        let lists = parts
            .iter()
            .map(|p| parse_array_text(p).map(|n| vec![n]))
            .collect::<Result<_, _>>()?;
        return Ok(Node::Union(lists));
    }
    let text = if text == "*" { ":" } else { text };
    let invalid = || format!("invalid array index {text}");
    let pieces: Vec<&str> = text.split(':').collect();
    if pieces.len() > 3 || !pieces.iter().all(|p| is_index(p)) {
        return Err(invalid());
    }
    let mut params = [Param::default(); 3];
    for (i, param) in params.iter_mut().enumerate() {
        match pieces.get(i) {
            Some(s) if !s.is_empty() => {
                *param = Param {
                    value: s
                        .parse()
                        .map_err(|_| format!("array index {s} is not a number"))?,
                    known: true,
                    derived: false,
                };
            }
            Some(_) => {}
            None if i == 1 => {}
            None => {}
        }
    }
    if pieces.len() == 1 {
        params[1] = Param {
            value: params[0].value + 1,
            known: true,
            derived: true,
        };
    }
    Ok(Node::Array(params))
}

fn is_index(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    digits.chars().all(|c| c.is_ascii_digit())
}

fn is_terminator(c: char) -> bool {
    matches!(c, ' ' | '.' | ',' | '[' | ']' | '$' | '@' | '{' | '}')
}

fn is_alphanumeric(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Go's strconv.Unquote for the body of a quoted string.
fn unquote(raw: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'v' => out.push('\u{b}'),
            c @ ('\\' | '"' | '\'') => out.push(c),
            'x' => {
                let hex: String = chars.by_ref().take(2).collect();
                out.push(char::from(u8::from_str_radix(&hex, 16).ok()?));
            }
            'u' => {
                let hex: String = chars.by_ref().take(4).collect();
                out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
            }
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment() -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "x", "resourceVersion": "184553", "creationTimestamp": null,
                         "labels": {"app": "x", "app.kubernetes.io/name": "orders"}},
            "spec": {"replicas": 1, "template": {"spec": {"containers": [
                {"name": "y", "image": "y"}, {"name": "z", "image": "img-z"}]}}},
        })
    }

    fn run(t: &str) -> Result<String, JsonPathError> {
        JsonPath::parse(t)?.execute(&deployment(), true)
    }

    #[test]
    fn evaluates_like_client_go() {
        let c = ".spec.template.spec.containers";
        for (template, want) in [
            ("{.metadata.resourceVersion}", "184553"),
            ("{.metadata.labels.app\\.kubernetes\\.io/name}", "orders"),
            ("{.metadata.creationTimestamp}", "null"),
            (&format!("{{{c}[*].name}}"), "y z"),
            (&format!("{{{c}[-1].image}}"), "img-z"),
            (&format!("{{{c}[0:1].name}}"), "y"),
            (&format!("{{{c}[0,1].name}}"), "y z"),
            (&format!("{{{c}[?(@.name==\"z\")].image}}"), "img-z"),
            (&format!("{{{c}[?(@.image)].name}}"), "y z"),
            (
                &format!("{{range {c}[*]}}[{{.name}}]{{\"\\n\"}}{{end}}"),
                "[y]\n[z]\n",
            ),
            ("{..image}", "y img-z"),
            (
                "{.metadata.labels}",
                r#"{"app":"x","app.kubernetes.io/name":"orders"}"#,
            ),
            ("{.metadata.labels.*}", "x orders"),
            ("{.spec.replicas}{\"\\t\"}{.kind}", "1\tDeployment"),
            ("text{.kind}}", "textDeployment}"),
            ("{.spec.nothing}", ""),
            ("{ .kind }", "Deployment"),
            ("{range .nothing}x{end}", ""),
        ] {
            assert_eq!(run(template).as_deref(), Ok(want), "{template}");
        }
    }

    #[test]
    fn parse_errors_have_real_texts() {
        for (template, want) in [
            ("{.foo", "unclosed action"),
            ("{.items[}", "unterminated array"),
            ("{{.kind}}", "unrecognized character in action: U+007B '{'"),
            ("{\"a}", "unterminated quoted string"),
            ("{.a[?(@.b==\"y\"]}", "unterminated filter"),
            ("{.a[?(@.b==\"y\")", "unclosed array expect ]"),
            ("{.a[a]}", "invalid array index a"),
        ] {
            assert_eq!(
                JsonPath::parse(template).unwrap_err(),
                JsonPathError::Parse(want.into()),
                "{template}"
            );
        }
    }

    #[test]
    fn execution_errors_have_real_texts() {
        let c = ".spec.template.spec.containers";
        for (template, want) in [
            (format!("{{{c}[5]}}"), "array index out of bounds: index 5, length 2"),
            (format!("{{{c}[0:5]}}"), "array index out of bounds: index 4, length 2"),
            ("{.kind[0]}".into(), "string is not array or slice"),
            ("{.metadata.labels[*]}".into(), "map[string]interface {} is not array or slice"),
            ("{end}".into(), "not in range, nothing to end"),
            ("{foo}".into(), "unrecognized identifier foo"),
            (format!("{{{c}[?(@.name==1)]}}"), "incompatible types for comparison"),
            (
                "{.metadata[?(@.a)]}".into(),
                "map[creationTimestamp:<nil> labels:map[app:x app.kubernetes.io/name:orders] name:x resourceVersion:184553] is not array or slice and cannot be filtered",
            ),
        ] {
            assert_eq!(run(&template), Err(JsonPathError::Exec(want.into())), "{template}");
        }
        let strict = JsonPath::parse("{.spec.foo}").unwrap();
        assert_eq!(
            strict.execute(&deployment(), false),
            Err(JsonPathError::Exec("foo is not found".into()))
        );
    }

    proptest::proptest! {
        #[test]
        fn never_panics(t in ".{0,40}") {
            if let Ok(p) = JsonPath::parse(&t) {
                let _ = p.execute(&deployment(), true);
                let _ = p.execute(&deployment(), false);
            }
        }
    }
}
