//! The LLM agent's side of the protocol, parsed with quick-xml: tool calls
//! (`<tool name="…" arg="…"/>`) anywhere in its text, or the final findings XML of behaviour §3.3
//! (`<findings><finding id category severity><title/><insight/><files><file/></files>
//! <evidence><ref kind id/>…</evidence></finding></findings>`). Nothing here trusts the content:
//! ids, categories and files are checked later.

use std::collections::BTreeMap;

use anyhow::{Context, Result, bail};
use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

/// One tool call: its name and its arguments (the element's other attributes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    pub name: String,
    pub args: BTreeMap<String, String>,
}

/// A finding as the model proposed it, before any check.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Proposed {
    pub id: String,
    pub category: String,
    pub severity: String,
    pub title: String,
    pub insight: String,
    pub files: Vec<String>,
    /// (kind, id) of each `<ref>`.
    pub refs: Vec<(String, String)>,
}

/// What one model turn asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// The final answer.
    Findings(Vec<Proposed>),
    Tools(Vec<ToolCall>),
    /// Neither a tool call nor the findings.
    Prose,
}

/// Reads one model turn. A `<findings>` element makes it the final answer, which must be
/// well-formed XML; otherwise its `<tool>` elements are the calls.
pub fn parse_reply(text: &str) -> Result<Reply> {
    if let Some(start) = text.find("<findings") {
        let rest = &text[start..];
        let end = match (rest.find("</findings>"), rest.find("/>")) {
            (Some(end), _) => end + "</findings>".len(),
            (None, Some(end)) if !rest[..end].contains('>') => end + 2,
            _ => bail!("the findings XML is not closed (truncated answer?)"),
        };
        return parse_findings(&rest[..end]).map(Reply::Findings);
    }
    let calls = tool_calls(text)?;
    Ok(if calls.is_empty() {
        Reply::Prose
    } else {
        Reply::Tools(calls)
    })
}

/// Every `<tool …/>` (or `<tool …>…</tool>`) element of `text`, in order.
fn tool_calls(text: &str) -> Result<Vec<ToolCall>> {
    let mut calls = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("<tool") {
        let element = &rest[start..];
        let Some(tag_end) = element.find('>') else {
            bail!("a tool call is not closed");
        };
        let tag = &element[..=tag_end];
        let mut reader = Reader::from_str(tag);
        match reader.read_event() {
            Ok(Event::Start(e) | Event::Empty(e)) if e.name().as_ref() == b"tool" => {
                let mut args = attributes(&e)?;
                let name = args.remove("name").context("a tool call has no name")?;
                calls.push(ToolCall { name, args });
            }
            // `<toolbox>` or similar prose: not a call.
            Ok(_) => {}
            Err(error) => bail!("a tool call is not valid XML: {error}"),
        }
        let after = if tag.ends_with("/>") {
            tag_end + 1
        } else {
            element
                .find("</tool>")
                .map_or(tag_end + 1, |end| end + "</tool>".len())
        };
        rest = &element[after..];
    }
    Ok(calls)
}

pub(super) fn attributes(element: &BytesStart<'_>) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for attribute in element.attributes() {
        let attribute = attribute.context("an attribute is not valid XML")?;
        let key = String::from_utf8_lossy(attribute.key.as_ref()).into_owned();
        let value = attribute
            .unescape_value()
            .context("an attribute value is not valid XML")?
            .into_owned();
        out.insert(key, value);
    }
    Ok(out)
}

/// Where the parser is inside a finding.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    None,
    Title,
    Insight,
    File,
}

/// Parses a `<findings>` document strictly: any XML error fails the whole answer.
pub fn parse_findings(xml: &str) -> Result<Vec<Proposed>> {
    let mut reader = Reader::from_str(xml);
    let mut findings = Vec::new();
    let mut current: Option<Proposed> = None;
    let mut field = Field::None;
    let mut file = String::new();
    loop {
        let event = reader.read_event().with_context(|| {
            format!(
                "the findings XML is invalid at byte {}",
                reader.buffer_position()
            )
        })?;
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
                let empty = matches!(event, Event::Empty(_));
                match e.name().as_ref() {
                    b"finding" => {
                        let mut args = attributes(e)?;
                        let finding = Proposed {
                            id: args.remove("id").unwrap_or_default(),
                            category: args.remove("category").unwrap_or_default(),
                            severity: args.remove("severity").unwrap_or_default(),
                            ..Proposed::default()
                        };
                        if empty {
                            findings.push(finding);
                        } else {
                            current = Some(finding);
                        }
                    }
                    _ if empty && e.name().as_ref() != b"ref" => {}
                    b"title" => field = Field::Title,
                    b"insight" => field = Field::Insight,
                    b"file" => {
                        field = Field::File;
                        file.clear();
                    }
                    b"ref" => {
                        let args = attributes(e)?;
                        if let (Some(finding), Some(kind), Some(id)) =
                            (current.as_mut(), args.get("kind"), args.get("id"))
                        {
                            finding.refs.push((kind.clone(), id.clone()));
                        }
                    }
                    _ => {}
                }
            }
            Event::Text(t) => append(&mut current, field, &mut file, &t.decode()?),
            Event::CData(t) => append(&mut current, field, &mut file, &t.decode()?),
            Event::GeneralRef(r) => {
                let resolved = match r.resolve_char_ref()? {
                    Some(c) => c.to_string(),
                    None => {
                        let name = r.decode()?;
                        quick_xml::escape::resolve_predefined_entity(&name)
                            .with_context(|| {
                                format!("unknown entity &{name}; in the findings XML")
                            })?
                            .to_string()
                    }
                };
                append(&mut current, field, &mut file, &resolved);
            }
            Event::End(e) => match e.name().as_ref() {
                b"finding" => findings.extend(current.take()),
                b"file" => {
                    if let Some(finding) = current.as_mut() {
                        let path = file.trim();
                        if !path.is_empty() {
                            finding.files.push(path.to_string());
                        }
                    }
                    field = Field::None;
                }
                b"title" | b"insight" => field = Field::None,
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
    }
    for finding in &mut findings {
        finding.title = finding.title.trim().to_string();
        finding.insight = finding.insight.trim().to_string();
    }
    Ok(findings)
}

fn append(current: &mut Option<Proposed>, field: Field, file: &mut String, text: &str) {
    let Some(finding) = current.as_mut() else {
        return;
    };
    match field {
        Field::Title => finding.title.push_str(text),
        Field::Insight => finding.insight.push_str(text),
        Field::File => file.push_str(text),
        Field::None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_calls_are_read_from_prose() {
        let text = "Let me look.\n<tool name=\"read_theme\" id=\"t-1\"/> and <tool name=\"grep\" pattern=\"a &amp; b\"></tool>";
        let Reply::Tools(calls) = parse_reply(text).unwrap() else {
            panic!("tools expected");
        };
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].name, "read_theme");
        assert_eq!(calls[0].args["id"], "t-1");
        assert_eq!(calls[1].args["pattern"], "a & b");
    }

    #[test]
    fn findings_are_parsed_with_entities_and_refs() {
        let text = r#"Done. <findings><finding id="f-t-1" category="testing" severity="medium">
            <title>Test the &lt;empty&gt; case</title><insight>Why &amp; how</insight>
            <files><file>src/a.rs</file></files>
            <evidence><ref kind="comment" id="12"/><ref kind="commit" id="abc"/></evidence>
            </finding></findings>"#;
        let Reply::Findings(found) = parse_reply(text).unwrap() else {
            panic!("findings expected");
        };
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].title, "Test the <empty> case");
        assert_eq!(found[0].insight, "Why & how");
        assert_eq!(found[0].files, ["src/a.rs"]);
        assert_eq!(found[0].refs.len(), 2);
    }

    #[test]
    fn broken_findings_xml_is_an_error() {
        assert!(parse_reply("<findings><finding><title>x</insight></finding></findings>").is_err());
        assert!(parse_reply("<findings><finding>").is_err());
    }

    #[test]
    fn prose_is_neither() {
        assert_eq!(parse_reply("I think so.").unwrap(), Reply::Prose);
    }
}
