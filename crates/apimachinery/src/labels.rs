//! Label selectors (`k8s.io/apimachinery/pkg/labels`): parsing, matching and printing.
//!
//! Selectors are how everything in Kubernetes finds everything else: a ReplicaSet its pods,
//! `kubectl get -l app=nginx` its rows, a watch its events (`?labelSelector=app%3Dnginx`). The
//! parser here is the real one's lexer and recursive descent, token for token, so that the same
//! strings are accepted, the same errors come back (`unable to parse requirement: ...`,
//! `found ')', expected: ...`), and `Display` prints the canonical `String()` form.

use crate::sort;
use crate::table::or_none;
use crate::unstructured::{array, str_at, string, string_map};
use crate::validation::{
    aggregate_message, is_qualified_name, is_valid_label_value, BadValue, FieldError,
};
use serde_json::Value;
use std::collections::BTreeSet;
use std::fmt;

/// A set of labels, ordered by key.
pub type Labels = std::collections::BTreeMap<String, String>;

/// A selector operator, named as in `k8s.io/apimachinery/pkg/selection`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operator {
    Equals,
    DoubleEquals,
    NotEquals,
    In,
    NotIn,
    Exists,
    DoesNotExist,
    GreaterThan,
    LessThan,
}

impl Operator {
    /// `selection.Operator` strings: `=`, `==`, `!=`, `in`, `notin`, `exists`, `!`, `gt`, `lt`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Operator::Equals => "=",
            Operator::DoubleEquals => "==",
            Operator::NotEquals => "!=",
            Operator::In => "in",
            Operator::NotIn => "notin",
            Operator::Exists => "exists",
            Operator::DoesNotExist => "!",
            Operator::GreaterThan => "gt",
            Operator::LessThan => "lt",
        }
    }
}

/// The binary operators, in the order the parser's error message lists them.
const BINARY_OPERATORS: &str = "in, notin, =, ==, !=, gt, lt";

/// One term of a selector: a key, an operator and its values (sorted and deduplicated, as the
/// real parser's `sets.String` leaves them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    pub key: String,
    pub operator: Operator,
    pub values: Vec<String>,
}

impl Requirement {
    /// `NewRequirement`: validates the key, the number of values for the operator, integer
    /// values for `gt`/`lt`, and each value as a label value. `path` prefixes field paths.
    pub fn new(
        key: &str,
        operator: Operator,
        values: Vec<String>,
        path: Option<&str>,
    ) -> Result<Requirement, String> {
        let child = |name: &str| match path {
            Some(p) => format!("{p}.{name}"),
            None => name.to_string(),
        };
        let mut errs = Vec::new();
        if let Some(e) = validate_label_key(key, &child("key")) {
            errs.push(e);
        }
        let values_path = child("values");
        let bad_values = || BadValue::string_slice(&values);
        match operator {
            Operator::In | Operator::NotIn if values.is_empty() => errs.push(FieldError::invalid(
                &values_path,
                bad_values(),
                "for 'in', 'notin' operators, values set can't be empty",
            )),
            Operator::Equals | Operator::DoubleEquals | Operator::NotEquals
                if values.len() != 1 =>
            {
                errs.push(FieldError::invalid(
                    &values_path,
                    bad_values(),
                    "exact-match compatibility requires one single value",
                ))
            }
            Operator::Exists | Operator::DoesNotExist if !values.is_empty() => {
                errs.push(FieldError::invalid(
                    &values_path,
                    bad_values(),
                    "values set must be empty for exists and does not exist",
                ))
            }
            Operator::GreaterThan | Operator::LessThan => {
                if values.len() != 1 {
                    errs.push(FieldError::invalid(
                        &values_path,
                        bad_values(),
                        "for 'Gt', 'Lt' operators, exactly one value is required",
                    ));
                }
                for (i, v) in values.iter().enumerate() {
                    if parse_go_int64(v).is_none() {
                        errs.push(FieldError::invalid(
                            &format!("{values_path}[{i}]"),
                            v,
                            "for 'Gt', 'Lt' operators, the value must be an integer",
                        ));
                    }
                }
            }
            _ => {}
        }
        for (i, v) in values.iter().enumerate() {
            let msgs = is_valid_label_value(v);
            if !msgs.is_empty() {
                errs.push(FieldError::invalid(
                    &format!("{values_path}[{i}][{key}]"),
                    v,
                    &msgs.join("; "),
                ));
            }
        }
        if errs.is_empty() {
            Ok(Requirement {
                key: key.to_string(),
                operator,
                values,
            })
        } else {
            Err(aggregate_message(&errs))
        }
    }

    /// Whether `labels` satisfy this requirement (`Requirement.Matches`).
    pub fn matches(&self, labels: &Labels) -> bool {
        let value = labels.get(&self.key);
        match self.operator {
            Operator::In | Operator::Equals | Operator::DoubleEquals => {
                value.is_some_and(|v| self.values.contains(v))
            }
            Operator::NotIn | Operator::NotEquals => value.is_none_or(|v| !self.values.contains(v)),
            Operator::Exists => value.is_some(),
            Operator::DoesNotExist => value.is_none(),
            Operator::GreaterThan | Operator::LessThan => {
                let (Some(have), Some(want)) = (
                    value.and_then(|v| parse_go_int64(v)),
                    self.values.first().and_then(|v| parse_go_int64(v)),
                ) else {
                    return false;
                };
                if self.operator == Operator::GreaterThan {
                    have > want
                } else {
                    have < want
                }
            }
        }
    }
}

impl fmt::Display for Requirement {
    /// `Requirement.String()`: `!key`, `key`, `key=v`, `key in (a,b)`, `key>5`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.operator == Operator::DoesNotExist {
            f.write_str("!")?;
        }
        f.write_str(&self.key)?;
        let first = self.values.first().map_or("", String::as_str);
        match self.operator {
            Operator::Equals => write!(f, "={first}"),
            Operator::DoubleEquals => write!(f, "=={first}"),
            Operator::NotEquals => write!(f, "!={first}"),
            Operator::GreaterThan => write!(f, ">{first}"),
            Operator::LessThan => write!(f, "<{first}"),
            Operator::In => write!(f, " in ({})", self.values.join(",")),
            Operator::NotIn => write!(f, " notin ({})", self.values.join(",")),
            Operator::Exists | Operator::DoesNotExist => Ok(()),
        }
    }
}

/// Go's `strconv.ParseInt(v, 10, 64)`: optional sign, decimal digits, no spaces.
fn parse_go_int64(v: &str) -> Option<i64> {
    let digits = v.strip_prefix(['+', '-']).unwrap_or(v);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    v.parse().ok()
}

fn validate_label_key(key: &str, path: &str) -> Option<FieldError> {
    let msgs = is_qualified_name(key);
    (!msgs.is_empty()).then(|| FieldError::invalid(path, key, &msgs.join("; ")))
}

/// A parsed label selector: the AND of its requirements, sorted by key.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LabelSelector {
    requirements: Vec<Requirement>,
}

impl LabelSelector {
    /// `labels.Parse`: the full selector grammar, e.g.
    /// `a=b,c!=d,e in (x,y),!f,g,h notin (z),n>5`. The empty string selects everything.
    pub fn parse(s: &str) -> Result<LabelSelector, String> {
        let mut requirements = Parser::new(s).parse()?;
        sort::sort_by(&mut requirements, |a, b| a.key.cmp(&b.key));
        Ok(LabelSelector { requirements })
    }

    /// The selector that matches every object (`labels.Everything()`).
    pub fn everything() -> Self {
        LabelSelector::default()
    }

    /// A selector of the given requirements (sorted by key, as `Add` keeps them).
    pub fn from_requirements(mut requirements: Vec<Requirement>) -> Self {
        sort::sort_by(&mut requirements, |a, b| a.key.cmp(&b.key));
        LabelSelector { requirements }
    }

    /// `key1=v1,key2=v2`: what `SelectorFromSet` builds (e.g. from a ReplicaSet's template).
    pub fn from_set(labels: &Labels) -> Self {
        LabelSelector {
            requirements: labels
                .iter()
                .map(|(k, v)| Requirement {
                    key: k.clone(),
                    operator: Operator::Equals,
                    values: vec![v.clone()],
                })
                .collect(),
        }
    }

    /// Whether it has no requirements (and so matches everything).
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    /// Whether `labels` satisfy every requirement.
    pub fn matches(&self, labels: &Labels) -> bool {
        self.requirements.iter().all(|r| r.matches(labels))
    }

    pub fn requirements(&self) -> &[Requirement] {
        &self.requirements
    }

    /// `metav1.LabelSelectorAsSelector`: `matchLabels` become `key=value` (`Equals`),
    /// `matchExpressions` `(key, operator, values)` with operators `In`, `NotIn`, `Exists`,
    /// `DoesNotExist` as spelled in the API. Errors are the real ones
    /// (`"Foo" is not a valid label selector operator`, value-count errors).
    pub fn from_label_selector(
        match_labels: &Labels,
        match_expressions: &[(String, String, Vec<String>)],
    ) -> Result<LabelSelector, String> {
        if match_labels.is_empty() && match_expressions.is_empty() {
            return Ok(LabelSelector::everything());
        }
        let mut requirements = Vec::new();
        for (k, v) in match_labels {
            requirements.push(Requirement::new(
                k,
                Operator::Equals,
                vec![v.clone()],
                None,
            )?);
        }
        for (key, op, values) in match_expressions {
            let operator = match op.as_str() {
                "In" => Operator::In,
                "NotIn" => Operator::NotIn,
                "Exists" => Operator::Exists,
                "DoesNotExist" => Operator::DoesNotExist,
                other => {
                    return Err(format!(
                        "{} is not a valid label selector operator",
                        crate::quote::quote(other)
                    ))
                }
            };
            let mut values = values.clone();
            sort::sort(&mut values);
            values.dedup();
            requirements.push(Requirement::new(key, operator, values, None)?);
        }
        Ok(LabelSelector::from_requirements(requirements))
    }

    /// `RequiresExactMatch`: `Some(v)` if the selector requires `key=v` (or `key in (v)`).
    pub fn exact_value(&self, key: &str) -> Option<&str> {
        // Like the real one, only the first requirement on `key` is looked at.
        let r = self.requirements.iter().find(|r| r.key == key)?;
        match (&r.operator, r.values.as_slice()) {
            (Operator::Equals | Operator::DoubleEquals | Operator::In, [v]) => Some(v.as_str()),
            _ => None,
        }
    }
}

impl fmt::Display for LabelSelector {
    /// The canonical `String()` form: requirements joined by `,`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, r) in self.requirements.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{r}")?;
        }
        Ok(())
    }
}

/// The lexer's tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    EndOfString,
    ClosedPar,
    Comma,
    DoesNotExist,
    DoubleEquals,
    Equals,
    GreaterThan,
    Identifier,
    In,
    LessThan,
    NotEquals,
    NotIn,
    OpenPar,
}

/// Keyword and symbol literals (`string2token`).
fn literal_token(s: &[u8]) -> Option<Token> {
    Some(match s {
        b")" => Token::ClosedPar,
        b"," => Token::Comma,
        b"!" => Token::DoesNotExist,
        b"==" => Token::DoubleEquals,
        b"=" => Token::Equals,
        b">" => Token::GreaterThan,
        b"in" => Token::In,
        b"<" => Token::LessThan,
        b"!=" => Token::NotEquals,
        b"notin" => Token::NotIn,
        b"(" => Token::OpenPar,
        _ => return None,
    })
}

fn is_whitespace(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_special_symbol(c: u8) -> bool {
    matches!(c, b'=' | b'!' | b'(' | b')' | b',' | b'>' | b'<')
}

/// The byte-oriented lexer: a NUL byte, like the end of input, ends the string.
struct Lexer<'a> {
    s: &'a [u8],
    pos: usize,
}

impl Lexer<'_> {
    fn read(&mut self) -> u8 {
        match self.s.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                b
            }
            None => 0,
        }
    }

    fn unread(&mut self) {
        self.pos = self.pos.saturating_sub(1);
    }

    fn lex(&mut self) -> (Token, String) {
        let mut c = self.read();
        while is_whitespace(c) {
            c = self.read();
        }
        if c == 0 {
            return (Token::EndOfString, String::new());
        }
        self.unread();
        if is_special_symbol(c) {
            self.scan_special_symbol()
        } else {
            self.scan_id_or_keyword()
        }
    }

    fn scan_id_or_keyword(&mut self) -> (Token, String) {
        let start = self.pos;
        loop {
            let c = self.read();
            if c == 0 {
                break;
            }
            if is_special_symbol(c) || is_whitespace(c) {
                self.unread();
                break;
            }
        }
        let end = self.s.get(start..self.pos).map_or(&[][..], |b| b);
        // A trailing NUL was consumed but is not part of the word.
        let word = match end.iter().position(|&b| b == 0) {
            Some(i) => &end[..i],
            None => end,
        };
        let text = String::from_utf8_lossy(word).into_owned();
        (literal_token(word).unwrap_or(Token::Identifier), text)
    }

    /// The longest run of special symbols that is still a token (`!=`, `==`).
    fn scan_special_symbol(&mut self) -> (Token, String) {
        let mut buffer: Vec<u8> = Vec::new();
        let mut last: Option<(Token, String)> = None;
        loop {
            let c = self.read();
            if c == 0 {
                break;
            }
            if !is_special_symbol(c) {
                self.unread();
                break;
            }
            buffer.push(c);
            if let Some(t) = literal_token(&buffer) {
                last = Some((t, String::from_utf8_lossy(&buffer).into_owned()));
            } else if last.is_some() {
                self.unread();
                break;
            }
        }
        // Every single special symbol is a token, so `last` is always set here.
        last.unwrap_or((Token::EndOfString, String::new()))
    }
}

/// Whether `in`/`notin` are keywords (after a key) or plain identifiers (as values).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    KeyAndOperator,
    Values,
}

/// The recursive-descent parser over the scanned tokens.
struct Parser {
    items: Vec<(Token, String)>,
    position: usize,
}

impl Parser {
    fn new(s: &str) -> Parser {
        let mut lexer = Lexer {
            s: s.as_bytes(),
            pos: 0,
        };
        let mut items = Vec::new();
        loop {
            let item = lexer.lex();
            let end = item.0 == Token::EndOfString;
            items.push(item);
            if end {
                break;
            }
        }
        Parser { items, position: 0 }
    }

    fn in_context(token: Token, context: Context) -> Token {
        match token {
            Token::In | Token::NotIn if context == Context::Values => Token::Identifier,
            t => t,
        }
    }

    fn lookahead(&self, context: Context) -> (Token, String) {
        match self.items.get(self.position) {
            Some((t, lit)) => (Self::in_context(*t, context), lit.clone()),
            None => (Token::EndOfString, String::new()),
        }
    }

    fn consume(&mut self, context: Context) -> (Token, String) {
        let item = self.lookahead(context);
        self.position += 1;
        item
    }

    fn parse(&mut self) -> Result<Vec<Requirement>, String> {
        let mut requirements = Vec::new();
        loop {
            let (tok, lit) = self.lookahead(Context::Values);
            match tok {
                Token::Identifier | Token::DoesNotExist => {
                    let r = self
                        .parse_requirement()
                        .map_err(|e| format!("unable to parse requirement: {e}"))?;
                    requirements.push(r);
                    let (t, l) = self.consume(Context::Values);
                    match t {
                        Token::EndOfString => return Ok(requirements),
                        Token::Comma => {
                            let (t2, l2) = self.lookahead(Context::Values);
                            if t2 != Token::Identifier && t2 != Token::DoesNotExist {
                                return Err(format!(
                                    "found '{l2}', expected: identifier after ','"
                                ));
                            }
                        }
                        _ => return Err(format!("found '{l}', expected: ',' or 'end of string'")),
                    }
                }
                Token::EndOfString => return Ok(requirements),
                _ => {
                    return Err(format!(
                        "found '{lit}', expected: !, identifier, or 'end of string'"
                    ))
                }
            }
        }
    }

    fn parse_requirement(&mut self) -> Result<Requirement, String> {
        let (key, inferred) = self.parse_key_and_infer_operator()?;
        if let Some(op) = inferred {
            return Requirement::new(&key, op, Vec::new(), None);
        }
        let operator = self.parse_operator()?;
        let values = match operator {
            Operator::In | Operator::NotIn => self.parse_values()?,
            _ => self.parse_exact_value()?,
        };
        Requirement::new(&key, operator, values.into_iter().collect(), None)
    }

    /// The key, and `Exists`/`DoesNotExist` when no binary operator follows.
    fn parse_key_and_infer_operator(&mut self) -> Result<(String, Option<Operator>), String> {
        let (mut tok, mut lit) = self.consume(Context::Values);
        let mut operator = None;
        if tok == Token::DoesNotExist {
            operator = Some(Operator::DoesNotExist);
            (tok, lit) = self.consume(Context::Values);
        }
        if tok != Token::Identifier {
            return Err(format!("found '{lit}', expected: identifier"));
        }
        // The real parser validates the key with a nil field path, hence `<nil>`.
        if let Some(e) = validate_label_key(&lit, "<nil>") {
            return Err(e.message());
        }
        let (next, _) = self.lookahead(Context::Values);
        if (next == Token::EndOfString || next == Token::Comma) && operator.is_none() {
            operator = Some(Operator::Exists);
        }
        Ok((lit, operator))
    }

    fn parse_operator(&mut self) -> Result<Operator, String> {
        let (tok, lit) = self.consume(Context::KeyAndOperator);
        Ok(match tok {
            Token::In => Operator::In,
            Token::Equals => Operator::Equals,
            Token::DoubleEquals => Operator::DoubleEquals,
            Token::GreaterThan => Operator::GreaterThan,
            Token::LessThan => Operator::LessThan,
            Token::NotIn => Operator::NotIn,
            Token::NotEquals => Operator::NotEquals,
            _ => return Err(format!("found '{lit}', expected: {BINARY_OPERATORS}")),
        })
    }

    /// `(a,b,c)`; `()` is the set of the empty string.
    fn parse_values(&mut self) -> Result<BTreeSet<String>, String> {
        let (tok, lit) = self.consume(Context::Values);
        if tok != Token::OpenPar {
            return Err(format!("found '{lit}' expected: '('"));
        }
        let (tok, lit) = self.lookahead(Context::Values);
        match tok {
            Token::Identifier | Token::Comma => {
                let set = self.parse_identifiers_list()?;
                let (close, _) = self.consume(Context::Values);
                if close != Token::ClosedPar {
                    return Err(format!("found '{lit}', expected: ')'"));
                }
                Ok(set)
            }
            Token::ClosedPar => {
                self.consume(Context::Values);
                Ok(BTreeSet::from([String::new()]))
            }
            _ => Err(format!("found '{lit}', expected: ',', ')' or identifier")),
        }
    }

    /// The comma-separated identifiers inside `(...)`; empty elements are the empty string.
    fn parse_identifiers_list(&mut self) -> Result<BTreeSet<String>, String> {
        let mut set = BTreeSet::new();
        loop {
            let (tok, lit) = self.consume(Context::Values);
            match tok {
                Token::Identifier => {
                    set.insert(lit);
                    let (t2, l2) = self.lookahead(Context::Values);
                    match t2 {
                        Token::Comma => continue,
                        Token::ClosedPar => return Ok(set),
                        _ => return Err(format!("found '{l2}', expected: ',' or ')'")),
                    }
                }
                Token::Comma => {
                    if set.is_empty() {
                        set.insert(String::new());
                    }
                    let (t2, _) = self.lookahead(Context::Values);
                    if t2 == Token::ClosedPar {
                        set.insert(String::new());
                        return Ok(set);
                    }
                    if t2 == Token::Comma {
                        self.consume(Context::Values);
                        set.insert(String::new());
                    }
                }
                _ => return Err(format!("found '{lit}', expected: ',', or identifier")),
            }
        }
    }

    /// The single value after `=`, `==`, `!=`, `>`, `<`; nothing before `,`/end is `""`.
    fn parse_exact_value(&mut self) -> Result<BTreeSet<String>, String> {
        let (tok, _) = self.lookahead(Context::Values);
        if tok == Token::EndOfString || tok == Token::Comma {
            return Ok(BTreeSet::from([String::new()]));
        }
        let (tok, lit) = self.consume(Context::Values);
        if tok == Token::Identifier {
            Ok(BTreeSet::from([lit]))
        } else {
            Err(format!("found '{lit}', expected: identifier"))
        }
    }
}

/// `metav1.LabelSelector` printed the way `LabelSelectorAsSelector(...).String()` prints it.
pub fn selector_string(selector: Option<&Value>) -> String {
    let Some(sel) = selector else {
        return "<none>".into();
    };
    let mut parts: Vec<String> = string_map(sel, &["matchLabels"])
        .into_iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    for e in array(sel, &["matchExpressions"]) {
        let key = string(e, &["key"]);
        let mut values: Vec<String> = array(e, &["values"])
            .iter()
            .filter_map(|v| v.as_str().map(String::from))
            .collect();
        sort::sort(&mut values);
        let values = values.join(",");
        parts.push(match str_at(e, &["operator"]).unwrap_or_default() {
            "In" => format!("{key} in ({values})"),
            "NotIn" => format!("{key} notin ({values})"),
            "Exists" => key,
            "DoesNotExist" => format!("!{key}"),
            op => format!("{key} {op} ({values})"),
        });
    }
    sort::sort(&mut parts);
    or_none(parts.join(","))
}

/// A node's roles, from its `node-role.kubernetes.io/<role>` and `kubernetes.io/role` labels
/// (the ROLES column of `kubectl get nodes` and `describe node`'s Roles).
pub fn node_roles(node: &Value) -> String {
    let mut roles: Vec<String> = string_map(node, &["metadata", "labels"])
        .into_iter()
        .filter_map(|(k, v)| {
            if let Some(role) = k.strip_prefix("node-role.kubernetes.io/") {
                Some(role.to_string())
            } else if k == "kubernetes.io/role" {
                Some(v)
            } else {
                None
            }
        })
        .filter(|r| !r.is_empty())
        .collect();
    sort::sort(&mut roles);
    roles.dedup();
    or_none(roles.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn canonical(s: &str) -> String {
        LabelSelector::parse(s)
            .map(|sel| sel.to_string())
            .unwrap_or_else(|e| format!("ERR {e}"))
    }

    #[test]
    fn parses_to_canonical_form() {
        let cases = [
            ("", ""),
            ("x=a,y=b,z=c", "x=a,y=b,z=c"),
            ("z=c,x=a", "x=a,z=c"),
            ("x!=a,y=b", "x!=a,y=b"),
            ("x==a", "x==a"),
            ("x=", "x="),
            ("x= ", "x="),
            ("x=,z= ", "x=,z="),
            ("!x", "!x"),
            ("x", "x"),
            ("  x  ,  !y  ", "x,!y"),
            ("x in (b,a,a)", "x in (a,b)"),
            ("x in(a)", "x in (a)"),
            ("x notin (a, b)", "x notin (a,b)"),
            ("x in ()", "x in ()"),
            ("x in (,a)", "x in (,a)"),
            ("x in (a,,b)", "x in (,a,b)"),
            ("x in (a,)", "x in (,a)"),
            ("x in (in,notin)", "x in (in,notin)"),
            ("x>1", "x>1"),
            ("x>1,z<5", "x>1,z<5"),
            ("app=nginx,tier in (a,b)", "app=nginx,tier in (a,b)"),
            ("example.com/key=v", "example.com/key=v"),
            (
                "a=b\tc=d",
                "ERR found 'c', expected: ',' or 'end of string'",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(canonical(input), want, "input {input:?}");
        }
    }

    #[test]
    fn rejects_with_the_real_messages() {
        let cases = [
            ("x=a||y=b", "unable to parse requirement: values[0][x]: Invalid value: \"a||y\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"),
            ("x==a==b", "found '==', expected: ',' or 'end of string'"),
            ("!x=a", "found '=', expected: ',' or 'end of string'"),
            ("x<a", "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be an integer"),
            ("x=a,", "found '', expected: identifier after ','"),
            (",x=a", "found ',', expected: !, identifier, or 'end of string'"),
            ("x in a", "unable to parse requirement: found 'a' expected: '('"),
            ("x in (a", "unable to parse requirement: found '', expected: ',' or ')'"),
            ("x in (a,", "unable to parse requirement: found '', expected: ',', or identifier"),
            ("x in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier"),
            ("x y", "unable to parse requirement: found 'y', expected: in, notin, =, ==, !=, gt, lt"),
            ("x=(", "unable to parse requirement: found '(', expected: identifier"),
            ("!", "unable to parse requirement: found '', expected: identifier"),
            ("-x=a", "unable to parse requirement: <nil>: Invalid value: \"-x\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
        ];
        for (input, want) in cases {
            assert_eq!(canonical(input), format!("ERR {want}"), "input {input:?}");
        }
    }

    #[test]
    fn parsing_is_deterministic() {
        assert_eq!(
            LabelSelector::parse("x=a,a=x"),
            LabelSelector::parse("a=x,x=a")
        );
    }

    #[test]
    fn matches_like_kubernetes() {
        let l = labels(&[("app", "nginx"), ("tier", "front"), ("n", "7")]);
        let yes = [
            "",
            "app=nginx",
            "app==nginx",
            "app!=apache",
            "missing!=x",
            "app",
            "!missing",
            "tier in (front,back)",
            "tier notin (back)",
            "missing notin (x)",
            "n>5",
            "n<8",
            "app=nginx,n>6",
        ];
        let no = [
            "app=apache",
            "app!=nginx",
            "missing",
            "!app",
            "tier in (back)",
            "missing in (x)",
            "tier notin (front)",
            "n>7",
            "n<7",
            "app>1",
            "missing>1",
            "app=nginx,tier=back",
        ];
        for s in yes {
            assert!(
                LabelSelector::parse(s).unwrap().matches(&l),
                "{s} should match"
            );
        }
        for s in no {
            assert!(
                !LabelSelector::parse(s).unwrap().matches(&l),
                "{s} should not match"
            );
        }
    }

    #[test]
    fn exact_value_finds_equality_requirements() {
        let s = LabelSelector::parse("app=nginx,tier in (a),x in (a,b),y!=z").unwrap();
        assert_eq!(s.exact_value("app"), Some("nginx"));
        assert_eq!(s.exact_value("tier"), Some("a"));
        assert_eq!(s.exact_value("x"), None);
        assert_eq!(s.exact_value("y"), None);
        assert_eq!(s.exact_value("nope"), None);
        let first_wins = LabelSelector::parse("a!=x,a=y").unwrap();
        assert_eq!(first_wins.exact_value("a"), None);
    }

    #[test]
    fn from_label_selector_builds_and_validates() {
        let ml = labels(&[("app", "nginx")]);
        let exprs = vec![
            (
                "tier".to_string(),
                "In".to_string(),
                vec!["b".to_string(), "a".to_string()],
            ),
            ("canary".to_string(), "DoesNotExist".to_string(), vec![]),
        ];
        let s = LabelSelector::from_label_selector(&ml, &exprs).unwrap();
        assert_eq!(s.to_string(), "app=nginx,!canary,tier in (a,b)");
        assert!(LabelSelector::from_label_selector(&Labels::new(), &[])
            .unwrap()
            .is_empty());
        let bad_op = vec![("a".to_string(), "Foo".to_string(), vec![])];
        assert_eq!(
            LabelSelector::from_label_selector(&Labels::new(), &bad_op),
            Err("\"Foo\" is not a valid label selector operator".to_string())
        );
        let empty_in = vec![("a".to_string(), "In".to_string(), vec![])];
        assert_eq!(
            LabelSelector::from_label_selector(&Labels::new(), &empty_in),
            Err("values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty".to_string())
        );
        let exists_with_values =
            vec![("a".to_string(), "Exists".to_string(), vec!["x".to_string()])];
        assert_eq!(
            LabelSelector::from_label_selector(&Labels::new(), &exists_with_values),
            Err("values: Invalid value: []string{\"x\"}: values set must be empty for exists and does not exist".to_string())
        );
    }

    #[test]
    fn from_set_is_equality_on_every_label() {
        let s = LabelSelector::from_set(&labels(&[("b", "2"), ("a", "1")]));
        assert_eq!(s.to_string(), "a=1,b=2");
        assert!(s.matches(&labels(&[("a", "1"), ("b", "2"), ("c", "3")])));
        assert!(!s.matches(&labels(&[("a", "1")])));
    }

    proptest! {
        #[test]
        fn parse_never_panics(s in "\\PC*") {
            let _ = LabelSelector::parse(&s);
        }

        #[test]
        fn parse_never_panics_on_selector_alphabet(s in "[a-z=!(), <>.\\-/\t]{0,30}") {
            let _ = LabelSelector::parse(&s);
        }

        #[test]
        fn display_reparses_to_the_same_selector(s in "[a-c=!(), <>0-9]{0,24}") {
            if let Ok(sel) = LabelSelector::parse(&s) {
                let again = LabelSelector::parse(&sel.to_string());
                prop_assert_eq!(again, Ok(sel));
            }
        }

        #[test]
        fn generated_selectors_round_trip(
            reqs in proptest::collection::vec(
                ("[a-z]{1,3}", 0usize..7, proptest::collection::btree_set("[a-z0-9]{0,3}", 1..3)),
                0..4,
            )
        ) {
            let text: Vec<String> = reqs.iter().map(|(k, op, vals)| {
                let first = vals.iter().next().cloned().unwrap_or_default();
                let list: Vec<&str> = vals.iter().map(String::as_str).collect();
                match op {
                    0 => format!("{k}={first}"),
                    1 => format!("{k}!={first}"),
                    2 => format!("{k} in ({})", list.join(",")),
                    3 => format!("{k} notin ({})", list.join(",")),
                    4 => k.clone(),
                    5 => format!("!{k}"),
                    _ => format!("{k}>{}", first.len()),
                }
            }).collect();
            let sel = LabelSelector::parse(&text.join(","));
            prop_assert!(sel.is_ok(), "{:?}", sel);
            let sel = sel.unwrap();
            prop_assert_eq!(LabelSelector::parse(&sel.to_string()), Ok(sel));
        }
    }
}
