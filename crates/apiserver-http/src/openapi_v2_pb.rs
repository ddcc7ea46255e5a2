//! `/openapi/v2` in protobuf, the form client-go's `OpenAPISchema()` asks for (`Accept:
//! application/com.github.proto-openapi.spec.v2@v1.0+protobuf`) and decodes as gnostic's
//! `openapi.v2.Document`: `kubectl explain --output=plaintext-openapiv2` reads the schemas that
//! way, and so does kubectl's v2 fallback when v3 fails. The document itself is the engine's
//! JSON one ([`watchlab_engine::apiserver::openapi::v2`]); this file only re-says it.
//!
//! The messages are written from gnostic-models' `openapiv2/OpenAPIv2.proto` (field numbers as
//! there), only those a Kubernetes document uses; prost's derive encodes them. Every value
//! gnostic keeps as an `Any` (a vendor extension, a `default`, an `enum` member, an `example`)
//! carries its YAML text, as gnostic does; JSON is YAML, so the value's JSON is written.

use prost::Message;
use serde_json::{Map, Value};
use watchlab_engine::api::Registry;
use watchlab_engine::apiserver::openapi::v2;

/// The media type client-go asks for.
pub const PROTOBUF: &str = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
/// The same without the `@`, which Go's `mime.ParseMediaType` refuses: what kube-openapi's
/// handler labels the answer with (client-go fails on the other), and takes as a request too.
pub const PROTOBUF_DOTTED: &str = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

/// The v2 document of `registry` in the form `accept` prefers: its Content-Type and bytes.
/// Protobuf when the first media type of `accept` that this server knows is protobuf's;
/// JSON otherwise (an unknown or missing Accept too).
pub fn answer(registry: &Registry, accept: &str) -> (&'static str, Vec<u8>) {
    let doc = v2::document(registry);
    if wants_protobuf(accept) {
        (PROTOBUF_DOTTED, encode(&doc))
    } else {
        ("application/json", doc.to_string().into_bytes())
    }
}

/// Whether `accept` asks for protobuf before it asks for JSON.
pub fn wants_protobuf(accept: &str) -> bool {
    for range in accept.split(',') {
        let media = range.split(';').next().unwrap_or_default().trim();
        if media.eq_ignore_ascii_case(PROTOBUF) || media.eq_ignore_ascii_case(PROTOBUF_DOTTED) {
            return true;
        }
        if matches!(media, "application/json" | "application/*" | "*/*") {
            return false;
        }
    }
    false
}

/// The Swagger 2.0 document `doc` (JSON) as a serialized `openapi.v2.Document`.
pub fn encode(doc: &Value) -> Vec<u8> {
    document(doc).encode_to_vec()
}

// ---- messages (openapiv2/OpenAPIv2.proto) ----

/// `openapi.v2.Document`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Document {
    #[prost(string, tag = "1")]
    pub swagger: String,
    #[prost(message, optional, tag = "2")]
    pub info: Option<Info>,
    #[prost(string, tag = "3")]
    pub host: String,
    #[prost(string, tag = "4")]
    pub base_path: String,
    #[prost(string, repeated, tag = "5")]
    pub schemes: Vec<String>,
    #[prost(string, repeated, tag = "6")]
    pub consumes: Vec<String>,
    #[prost(string, repeated, tag = "7")]
    pub produces: Vec<String>,
    #[prost(message, optional, tag = "8")]
    pub paths: Option<Paths>,
    #[prost(message, optional, tag = "9")]
    pub definitions: Option<Definitions>,
    #[prost(message, repeated, tag = "16")]
    pub vendor_extension: Vec<NamedAny>,
}

/// `openapi.v2.Info`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Info {
    #[prost(string, tag = "1")]
    pub title: String,
    #[prost(string, tag = "2")]
    pub version: String,
    #[prost(string, tag = "3")]
    pub description: String,
    #[prost(message, repeated, tag = "7")]
    pub vendor_extension: Vec<NamedAny>,
}

/// `openapi.v2.Any`: a value as its YAML text (`value`, a `google.protobuf.Any`, left unset).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Any {
    #[prost(string, tag = "2")]
    pub yaml: String,
}

/// `openapi.v2.NamedAny`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NamedAny {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(message, optional, tag = "2")]
    pub value: Option<Any>,
}

/// `openapi.v2.Paths`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Paths {
    #[prost(message, repeated, tag = "1")]
    pub vendor_extension: Vec<NamedAny>,
    #[prost(message, repeated, tag = "2")]
    pub path: Vec<NamedPathItem>,
}

/// `openapi.v2.NamedPathItem`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NamedPathItem {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(message, optional, tag = "2")]
    pub value: Option<PathItem>,
}

/// `openapi.v2.PathItem`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PathItem {
    #[prost(string, tag = "1")]
    pub r#ref: String,
    #[prost(message, optional, tag = "2")]
    pub get: Option<Operation>,
    #[prost(message, optional, tag = "3")]
    pub put: Option<Operation>,
    #[prost(message, optional, tag = "4")]
    pub post: Option<Operation>,
    #[prost(message, optional, tag = "5")]
    pub delete: Option<Operation>,
    #[prost(message, optional, tag = "6")]
    pub options: Option<Operation>,
    #[prost(message, optional, tag = "7")]
    pub head: Option<Operation>,
    #[prost(message, optional, tag = "8")]
    pub patch: Option<Operation>,
    #[prost(message, repeated, tag = "9")]
    pub parameters: Vec<ParametersItem>,
    #[prost(message, repeated, tag = "10")]
    pub vendor_extension: Vec<NamedAny>,
}

/// `openapi.v2.Operation`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Operation {
    #[prost(string, repeated, tag = "1")]
    pub tags: Vec<String>,
    #[prost(string, tag = "2")]
    pub summary: String,
    #[prost(string, tag = "3")]
    pub description: String,
    #[prost(string, tag = "5")]
    pub operation_id: String,
    #[prost(string, repeated, tag = "6")]
    pub produces: Vec<String>,
    #[prost(string, repeated, tag = "7")]
    pub consumes: Vec<String>,
    #[prost(message, repeated, tag = "8")]
    pub parameters: Vec<ParametersItem>,
    #[prost(message, optional, tag = "9")]
    pub responses: Option<Responses>,
    #[prost(string, repeated, tag = "10")]
    pub schemes: Vec<String>,
    #[prost(bool, tag = "11")]
    pub deprecated: bool,
    #[prost(message, repeated, tag = "13")]
    pub vendor_extension: Vec<NamedAny>,
}

/// `openapi.v2.ParametersItem`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ParametersItem {
    #[prost(oneof = "ParametersItemOneof", tags = "1, 2")]
    pub oneof: Option<ParametersItemOneof>,
}

#[derive(Clone, PartialEq, prost::Oneof)]
pub enum ParametersItemOneof {
    #[prost(message, tag = "1")]
    Parameter(Parameter),
    #[prost(message, tag = "2")]
    JsonReference(JsonReference),
}

/// `openapi.v2.JsonReference`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct JsonReference {
    #[prost(string, tag = "1")]
    pub r#ref: String,
    #[prost(string, tag = "2")]
    pub description: String,
}

/// `openapi.v2.Parameter`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Parameter {
    #[prost(oneof = "ParameterOneof", tags = "1, 2")]
    pub oneof: Option<ParameterOneof>,
}

#[derive(Clone, PartialEq, prost::Oneof)]
pub enum ParameterOneof {
    #[prost(message, boxed, tag = "1")]
    BodyParameter(Box<BodyParameter>),
    #[prost(message, tag = "2")]
    NonBodyParameter(NonBodyParameter),
}

/// `openapi.v2.BodyParameter`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct BodyParameter {
    #[prost(string, tag = "1")]
    pub description: String,
    #[prost(string, tag = "2")]
    pub name: String,
    #[prost(string, tag = "3")]
    pub r#in: String,
    #[prost(bool, tag = "4")]
    pub required: bool,
    #[prost(message, optional, tag = "5")]
    pub schema: Option<Schema>,
    #[prost(message, repeated, tag = "6")]
    pub vendor_extension: Vec<NamedAny>,
}

/// `openapi.v2.NonBodyParameter`. `HeaderParameterSubSchema` numbers its fields as
/// `PathParameterSubSchema` does, and `FormDataParameterSubSchema` as
/// `QueryParameterSubSchema`, so one struct serves each pair.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NonBodyParameter {
    #[prost(oneof = "NonBodyOneof", tags = "1, 2, 3, 4")]
    pub oneof: Option<NonBodyOneof>,
}

#[derive(Clone, PartialEq, prost::Oneof)]
pub enum NonBodyOneof {
    #[prost(message, tag = "1")]
    Header(PathParameterSubSchema),
    #[prost(message, tag = "2")]
    FormData(QueryParameterSubSchema),
    #[prost(message, tag = "3")]
    Query(QueryParameterSubSchema),
    #[prost(message, tag = "4")]
    Path(PathParameterSubSchema),
}

/// `openapi.v2.QueryParameterSubSchema` (the fields a Kubernetes parameter uses).
#[derive(Clone, PartialEq, prost::Message)]
pub struct QueryParameterSubSchema {
    #[prost(bool, tag = "1")]
    pub required: bool,
    #[prost(string, tag = "2")]
    pub r#in: String,
    #[prost(string, tag = "3")]
    pub description: String,
    #[prost(string, tag = "4")]
    pub name: String,
    #[prost(string, tag = "6")]
    pub r#type: String,
    #[prost(string, tag = "7")]
    pub format: String,
    #[prost(bool, tag = "20")]
    pub unique_items: bool,
    #[prost(message, repeated, tag = "23")]
    pub vendor_extension: Vec<NamedAny>,
}

/// `openapi.v2.PathParameterSubSchema` (the fields a Kubernetes parameter uses).
#[derive(Clone, PartialEq, prost::Message)]
pub struct PathParameterSubSchema {
    #[prost(bool, tag = "1")]
    pub required: bool,
    #[prost(string, tag = "2")]
    pub r#in: String,
    #[prost(string, tag = "3")]
    pub description: String,
    #[prost(string, tag = "4")]
    pub name: String,
    #[prost(string, tag = "5")]
    pub r#type: String,
    #[prost(string, tag = "6")]
    pub format: String,
    #[prost(bool, tag = "19")]
    pub unique_items: bool,
    #[prost(message, repeated, tag = "22")]
    pub vendor_extension: Vec<NamedAny>,
}

/// `openapi.v2.Responses`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Responses {
    #[prost(message, repeated, tag = "1")]
    pub response_code: Vec<NamedResponseValue>,
    #[prost(message, repeated, tag = "2")]
    pub vendor_extension: Vec<NamedAny>,
}

/// `openapi.v2.NamedResponseValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NamedResponseValue {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(message, optional, tag = "2")]
    pub value: Option<ResponseValue>,
}

/// `openapi.v2.ResponseValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ResponseValue {
    #[prost(oneof = "ResponseValueOneof", tags = "1, 2")]
    pub oneof: Option<ResponseValueOneof>,
}

#[derive(Clone, PartialEq, prost::Oneof)]
pub enum ResponseValueOneof {
    #[prost(message, boxed, tag = "1")]
    Response(Box<Response>),
    #[prost(message, tag = "2")]
    JsonReference(JsonReference),
}

/// `openapi.v2.Response`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Response {
    #[prost(string, tag = "1")]
    pub description: String,
    #[prost(message, optional, tag = "2")]
    pub schema: Option<SchemaItem>,
    #[prost(message, repeated, tag = "5")]
    pub vendor_extension: Vec<NamedAny>,
}

/// `openapi.v2.SchemaItem` (`file_schema`, 2, never used).
#[derive(Clone, PartialEq, prost::Message)]
pub struct SchemaItem {
    #[prost(message, optional, tag = "1")]
    pub schema: Option<Schema>,
}

/// `openapi.v2.Definitions`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Definitions {
    #[prost(message, repeated, tag = "1")]
    pub additional_properties: Vec<NamedSchema>,
}

/// `openapi.v2.NamedSchema`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NamedSchema {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(message, optional, tag = "2")]
    pub value: Option<Schema>,
}

/// `openapi.v2.Schema` (`xml`, 28, and `external_docs`, 29, never used).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Schema {
    #[prost(string, tag = "1")]
    pub r#ref: String,
    #[prost(string, tag = "2")]
    pub format: String,
    #[prost(string, tag = "3")]
    pub title: String,
    #[prost(string, tag = "4")]
    pub description: String,
    #[prost(message, optional, tag = "5")]
    pub default: Option<Any>,
    #[prost(double, tag = "6")]
    pub multiple_of: f64,
    #[prost(double, tag = "7")]
    pub maximum: f64,
    #[prost(bool, tag = "8")]
    pub exclusive_maximum: bool,
    #[prost(double, tag = "9")]
    pub minimum: f64,
    #[prost(bool, tag = "10")]
    pub exclusive_minimum: bool,
    #[prost(int64, tag = "11")]
    pub max_length: i64,
    #[prost(int64, tag = "12")]
    pub min_length: i64,
    #[prost(string, tag = "13")]
    pub pattern: String,
    #[prost(int64, tag = "14")]
    pub max_items: i64,
    #[prost(int64, tag = "15")]
    pub min_items: i64,
    #[prost(bool, tag = "16")]
    pub unique_items: bool,
    #[prost(int64, tag = "17")]
    pub max_properties: i64,
    #[prost(int64, tag = "18")]
    pub min_properties: i64,
    #[prost(string, repeated, tag = "19")]
    pub required: Vec<String>,
    #[prost(message, repeated, tag = "20")]
    pub r#enum: Vec<Any>,
    #[prost(message, optional, tag = "21")]
    pub additional_properties: Option<AdditionalPropertiesItem>,
    #[prost(message, optional, tag = "22")]
    pub r#type: Option<TypeItem>,
    #[prost(message, optional, tag = "23")]
    pub items: Option<ItemsItem>,
    #[prost(message, repeated, tag = "24")]
    pub all_of: Vec<Schema>,
    #[prost(message, optional, tag = "25")]
    pub properties: Option<Properties>,
    #[prost(string, tag = "26")]
    pub discriminator: String,
    #[prost(bool, tag = "27")]
    pub read_only: bool,
    #[prost(message, optional, tag = "30")]
    pub example: Option<Any>,
    #[prost(message, repeated, tag = "31")]
    pub vendor_extension: Vec<NamedAny>,
}

/// `openapi.v2.AdditionalPropertiesItem`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AdditionalPropertiesItem {
    #[prost(oneof = "AdditionalPropertiesOneof", tags = "1, 2")]
    pub oneof: Option<AdditionalPropertiesOneof>,
}

#[derive(Clone, PartialEq, prost::Oneof)]
pub enum AdditionalPropertiesOneof {
    #[prost(message, boxed, tag = "1")]
    Schema(Box<Schema>),
    #[prost(bool, tag = "2")]
    Boolean(bool),
}

/// `openapi.v2.TypeItem`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TypeItem {
    #[prost(string, repeated, tag = "1")]
    pub value: Vec<String>,
}

/// `openapi.v2.ItemsItem`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ItemsItem {
    #[prost(message, repeated, tag = "1")]
    pub schema: Vec<Schema>,
}

/// `openapi.v2.Properties`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Properties {
    #[prost(message, repeated, tag = "1")]
    pub additional_properties: Vec<NamedSchema>,
}

// ---- JSON → messages ----

fn text(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn texts(v: &Value, key: &str) -> Vec<String> {
    v.get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

fn flag(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

fn number(v: &Value, key: &str) -> f64 {
    v.get(key).and_then(Value::as_f64).unwrap_or(0.0)
}

fn count(v: &Value, key: &str) -> i64 {
    let n = v.get(key);
    n.and_then(Value::as_i64)
        .or_else(|| n.and_then(Value::as_f64).map(|f| f as i64))
        .unwrap_or(0)
}

/// A value as gnostic keeps it: its YAML text (its JSON, which YAML reads), newline-ended.
fn any(v: &Value) -> Any {
    Any {
        yaml: format!("{v}\n"),
    }
}

fn optional_any(v: &Value, key: &str) -> Option<Any> {
    v.get(key).map(any)
}

/// The object's `x-` keys, in order.
fn extensions(v: &Value) -> Vec<NamedAny> {
    v.as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| k.starts_with("x-"))
        .map(|(k, v)| NamedAny {
            name: k.clone(),
            value: Some(any(v)),
        })
        .collect()
}

fn document(v: &Value) -> Document {
    let info = v.get("info").map(|i| Info {
        title: text(i, "title"),
        version: text(i, "version"),
        description: text(i, "description"),
        vendor_extension: extensions(i),
    });
    let paths = v.get("paths").map(|p| Paths {
        vendor_extension: extensions(p),
        path: entries(p)
            .filter(|(k, _)| !k.starts_with("x-"))
            .map(|(k, item)| NamedPathItem {
                name: k.clone(),
                value: Some(path_item(item)),
            })
            .collect(),
    });
    let definitions = v.get("definitions").map(|d| Definitions {
        additional_properties: named_schemas(d),
    });
    Document {
        swagger: text(v, "swagger"),
        info,
        host: text(v, "host"),
        base_path: text(v, "basePath"),
        schemes: texts(v, "schemes"),
        consumes: texts(v, "consumes"),
        produces: texts(v, "produces"),
        paths,
        definitions,
        vendor_extension: extensions(v),
    }
}

/// The entries of an object (none for anything else).
fn entries(v: &Value) -> impl Iterator<Item = (&String, &Value)> {
    v.as_object().into_iter().flat_map(Map::iter)
}

fn named_schemas(v: &Value) -> Vec<NamedSchema> {
    entries(v)
        .map(|(k, s)| NamedSchema {
            name: k.clone(),
            value: Some(schema(s)),
        })
        .collect()
}

fn path_item(v: &Value) -> PathItem {
    let op = |method: &str| v.get(method).map(operation);
    PathItem {
        r#ref: text(v, "$ref"),
        get: op("get"),
        put: op("put"),
        post: op("post"),
        delete: op("delete"),
        options: op("options"),
        head: op("head"),
        patch: op("patch"),
        parameters: parameters(v),
        vendor_extension: extensions(v),
    }
}

fn operation(v: &Value) -> Operation {
    let responses = v.get("responses").map(|r| Responses {
        response_code: entries(r)
            .filter(|(k, _)| !k.starts_with("x-"))
            .map(|(code, answer)| NamedResponseValue {
                name: code.clone(),
                value: Some(response(answer)),
            })
            .collect(),
        vendor_extension: extensions(r),
    });
    Operation {
        tags: texts(v, "tags"),
        summary: text(v, "summary"),
        description: text(v, "description"),
        operation_id: text(v, "operationId"),
        produces: texts(v, "produces"),
        consumes: texts(v, "consumes"),
        parameters: parameters(v),
        responses,
        schemes: texts(v, "schemes"),
        deprecated: flag(v, "deprecated"),
        vendor_extension: extensions(v),
    }
}

fn response(v: &Value) -> ResponseValue {
    let oneof = if v.get("$ref").is_some() {
        ResponseValueOneof::JsonReference(JsonReference {
            r#ref: text(v, "$ref"),
            description: text(v, "description"),
        })
    } else {
        ResponseValueOneof::Response(Box::new(Response {
            description: text(v, "description"),
            schema: v.get("schema").map(|s| SchemaItem {
                schema: Some(schema(s)),
            }),
            vendor_extension: extensions(v),
        }))
    };
    ResponseValue { oneof: Some(oneof) }
}

/// The `parameters` list of a path item or an operation.
fn parameters(v: &Value) -> Vec<ParametersItem> {
    let list = v.get("parameters").and_then(Value::as_array);
    list.into_iter().flatten().map(parameter).collect()
}

fn parameter(p: &Value) -> ParametersItem {
    if p.get("$ref").is_some() {
        let reference = JsonReference {
            r#ref: text(p, "$ref"),
            description: text(p, "description"),
        };
        return ParametersItem {
            oneof: Some(ParametersItemOneof::JsonReference(reference)),
        };
    }
    let query = || QueryParameterSubSchema {
        required: flag(p, "required"),
        r#in: text(p, "in"),
        description: text(p, "description"),
        name: text(p, "name"),
        r#type: text(p, "type"),
        format: text(p, "format"),
        unique_items: flag(p, "uniqueItems"),
        vendor_extension: extensions(p),
    };
    let path = || PathParameterSubSchema {
        required: flag(p, "required"),
        r#in: text(p, "in"),
        description: text(p, "description"),
        name: text(p, "name"),
        r#type: text(p, "type"),
        format: text(p, "format"),
        unique_items: flag(p, "uniqueItems"),
        vendor_extension: extensions(p),
    };
    let non_body = |o| ParameterOneof::NonBodyParameter(NonBodyParameter { oneof: Some(o) });
    let oneof = match p.get("in").and_then(Value::as_str).unwrap_or_default() {
        "body" => ParameterOneof::BodyParameter(Box::new(BodyParameter {
            description: text(p, "description"),
            name: text(p, "name"),
            r#in: text(p, "in"),
            required: flag(p, "required"),
            schema: p.get("schema").map(schema),
            vendor_extension: extensions(p),
        })),
        "path" => non_body(NonBodyOneof::Path(path())),
        "header" => non_body(NonBodyOneof::Header(path())),
        "formData" => non_body(NonBodyOneof::FormData(query())),
        _ => non_body(NonBodyOneof::Query(query())),
    };
    ParametersItem {
        oneof: Some(ParametersItemOneof::Parameter(Parameter {
            oneof: Some(oneof),
        })),
    }
}

/// A schema; `properties` is set whenever the JSON has the key (kube-openapi tells an object
/// with no properties from a map by it).
fn schema(v: &Value) -> Schema {
    let additional = v.get("additionalProperties").and_then(|a| match a {
        Value::Bool(b) => Some(AdditionalPropertiesOneof::Boolean(*b)),
        Value::Object(_) => Some(AdditionalPropertiesOneof::Schema(Box::new(schema(a)))),
        _ => None,
    });
    let r#type = v.get("type").map(|t| TypeItem {
        value: match t {
            Value::String(s) => vec![s.clone()],
            _ => texts(v, "type"),
        },
    });
    let items = v.get("items").map(|i| ItemsItem {
        schema: match i {
            Value::Array(list) => list.iter().map(schema).collect(),
            _ => vec![schema(i)],
        },
    });
    let all_of = v.get("allOf").and_then(Value::as_array);
    Schema {
        r#ref: text(v, "$ref"),
        format: text(v, "format"),
        title: text(v, "title"),
        description: text(v, "description"),
        default: optional_any(v, "default"),
        multiple_of: number(v, "multipleOf"),
        maximum: number(v, "maximum"),
        exclusive_maximum: flag(v, "exclusiveMaximum"),
        minimum: number(v, "minimum"),
        exclusive_minimum: flag(v, "exclusiveMinimum"),
        max_length: count(v, "maxLength"),
        min_length: count(v, "minLength"),
        pattern: text(v, "pattern"),
        max_items: count(v, "maxItems"),
        min_items: count(v, "minItems"),
        unique_items: flag(v, "uniqueItems"),
        max_properties: count(v, "maxProperties"),
        min_properties: count(v, "minProperties"),
        required: texts(v, "required"),
        r#enum: v
            .get("enum")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(any)
            .collect(),
        additional_properties: additional.map(|o| AdditionalPropertiesItem { oneof: Some(o) }),
        r#type,
        items,
        all_of: all_of.into_iter().flatten().map(schema).collect(),
        properties: v.get("properties").map(|p| Properties {
            additional_properties: named_schemas(p),
        }),
        discriminator: text(v, "discriminator"),
        read_only: flag(v, "readOnly"),
        example: optional_any(v, "example"),
        vendor_extension: extensions(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn negotiation_follows_the_first_known_media_type() {
        assert!(wants_protobuf(PROTOBUF));
        assert!(wants_protobuf(&format!(
            "{PROTOBUF_DOTTED}, application/json"
        )));
        assert!(wants_protobuf(&format!("text/html, {PROTOBUF};q=0.9, */*")));
        assert!(!wants_protobuf(&format!("application/json, {PROTOBUF}")));
        assert!(!wants_protobuf(""));
        assert!(!wants_protobuf("application/yaml"));
    }

    #[test]
    fn a_schema_keeps_its_reference_type_properties_and_extensions() {
        let v = json!({
            "type": "object",
            "description": "A pod.",
            "required": ["spec"],
            "properties": {
                "spec": {"$ref": "#/definitions/PodSpec", "description": "Its spec."},
                "ports": {"type": "array", "items": {"type": "integer", "format": "int32"},
                          "x-kubernetes-patch-merge-key": "containerPort",
                          "x-kubernetes-patch-strategy": "merge"},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "open": {"type": "object", "additionalProperties": true},
                "empty": {"type": "object", "properties": {}},
            },
            "x-kubernetes-group-version-kind": [{"group": "", "kind": "Pod", "version": "v1"}],
        });
        let s = Schema::decode(schema(&v).encode_to_vec().as_slice()).unwrap_or_default();
        assert_eq!(s.r#type.map(|t| t.value), Some(vec!["object".to_string()]));
        assert_eq!(
            (s.description.as_str(), s.required),
            ("A pod.", vec!["spec".to_string()])
        );
        let gvk = &s.vendor_extension[0];
        assert_eq!(gvk.name, "x-kubernetes-group-version-kind");
        let yaml = gvk.value.clone().unwrap_or_default().yaml;
        assert_eq!(
            yaml,
            "[{\"group\":\"\",\"kind\":\"Pod\",\"version\":\"v1\"}]\n"
        );
        let props = s.properties.unwrap_or_default().additional_properties;
        let prop = |name: &str| {
            props
                .iter()
                .find(|p| p.name == name)
                .and_then(|p| p.value.clone())
                .unwrap_or_default()
        };
        assert_eq!(prop("spec").r#ref, "#/definitions/PodSpec");
        assert_eq!(prop("spec").description, "Its spec.");
        assert!(prop("spec").r#type.is_none());
        let ports = prop("ports");
        assert_eq!(ports.items.unwrap_or_default().schema[0].format, "int32");
        assert_eq!(ports.vendor_extension.len(), 2);
        assert_eq!(
            ports.vendor_extension[1]
                .value
                .clone()
                .unwrap_or_default()
                .yaml,
            "\"merge\"\n"
        );
        let labels = prop("labels").additional_properties.and_then(|a| a.oneof);
        assert!(
            matches!(labels, Some(AdditionalPropertiesOneof::Schema(ref s)) if s.r#type.as_ref().map(|t| t.value.clone()) == Some(vec!["string".to_string()]))
        );
        let open = prop("open").additional_properties.and_then(|a| a.oneof);
        assert_eq!(open, Some(AdditionalPropertiesOneof::Boolean(true)));
        // Present though empty: an object with no fields, not a map.
        assert_eq!(prop("empty").properties, Some(Properties::default()));
        assert_eq!(prop("labels").properties, None);
    }

    #[test]
    fn operations_parameters_and_responses_are_kept() {
        let doc = json!({
            "swagger": "2.0",
            "info": {"title": "Kubernetes", "version": "v1.32.0"},
            "paths": {"/api/v1/namespaces/{namespace}/pods/{name}": {
                "parameters": [{"name": "name", "in": "path", "required": true, "type": "string", "uniqueItems": true}],
                "patch": {
                    "operationId": "patchCoreV1NamespacedPod",
                    "consumes": ["application/json-patch+json"],
                    "produces": ["application/json"],
                    "parameters": [
                        {"name": "body", "in": "body", "required": true, "schema": {"type": "object"}},
                        {"name": "fieldValidation", "in": "query", "type": "string", "uniqueItems": true},
                    ],
                    "responses": {"200": {"description": "OK", "schema": {"$ref": "#/definitions/Pod"}}},
                    "x-kubernetes-action": "patch",
                },
            }},
            "definitions": {"Pod": {"type": "object", "properties": {}}},
        });
        let d = Document::decode(encode(&doc).as_slice()).unwrap_or_default();
        assert_eq!(d.swagger, "2.0");
        assert_eq!(d.info.unwrap_or_default().version, "v1.32.0");
        let paths = d.paths.unwrap_or_default().path;
        let item = paths[0].value.clone().unwrap_or_default();
        let name = item.parameters[0].oneof.clone();
        let Some(ParametersItemOneof::Parameter(Parameter {
            oneof:
                Some(ParameterOneof::NonBodyParameter(NonBodyParameter {
                    oneof: Some(NonBodyOneof::Path(name)),
                })),
        })) = name
        else {
            panic!("{name:?}");
        };
        assert!(name.required && name.unique_items && name.r#type == "string");
        let patch = item.patch.unwrap_or_default();
        assert_eq!(patch.operation_id, "patchCoreV1NamespacedPod");
        assert_eq!(patch.consumes, ["application/json-patch+json"]);
        assert!(matches!(
            &patch.parameters[0].oneof,
            Some(ParametersItemOneof::Parameter(Parameter { oneof: Some(ParameterOneof::BodyParameter(b)) }))
                if b.required && b.schema.is_some()
        ));
        assert!(matches!(
            &patch.parameters[1].oneof,
            Some(ParametersItemOneof::Parameter(Parameter { oneof: Some(ParameterOneof::NonBodyParameter(NonBodyParameter {
                oneof: Some(NonBodyOneof::Query(q)) })) })) if q.name == "fieldValidation"
        ));
        let ok = &patch.responses.unwrap_or_default().response_code[0];
        let Some(ResponseValueOneof::Response(r)) = ok.value.clone().and_then(|v| v.oneof) else {
            panic!("{ok:?}");
        };
        let reference = r.schema.and_then(|s| s.schema).map(|s| s.r#ref);
        assert_eq!(reference.as_deref(), Some("#/definitions/Pod"));
        assert_eq!(patch.vendor_extension[0].name, "x-kubernetes-action");
        assert_eq!(
            d.definitions.unwrap_or_default().additional_properties[0].name,
            "Pod"
        );
    }

    #[test]
    fn the_served_document_encodes_and_decodes() {
        let reg = Registry::default();
        let (media, bytes) = answer(&reg, PROTOBUF);
        assert_eq!(media, PROTOBUF_DOTTED);
        let d = Document::decode(bytes.as_slice()).unwrap_or_default();
        let defs = d.definitions.unwrap_or_default().additional_properties;
        assert!(defs.iter().any(|s| s.name == "io.k8s.api.core.v1.Pod"));
        let (media, json) = answer(&reg, "application/json");
        assert_eq!(media, "application/json");
        let v: Value = serde_json::from_slice(&json).unwrap_or_default();
        assert_eq!(v["swagger"], "2.0");
    }
}
