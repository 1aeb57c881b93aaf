//! A repository's lessons as readers outside GitHub see them: its current findings, themes and
//! evidence read from the store (or from a `gitlore export --format json` file) into plain
//! structs (`report`), the JSON shape both write (`json`), and the lessons that apply to given
//! paths or match a text, within a size budget (`select`). `gitlore export`, `gitlore lessons`
//! and `gitlore mcp` read through here; dismissed findings never come out.

pub mod json;
pub mod report;
pub mod select;
