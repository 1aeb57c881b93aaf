//! The words the title check reads, and the selection with it: what opens advice, what hedges
//! it, what makes a sentence personal, what cannot end one, what opens a sentence before its
//! lesson. Checked lower-case.

use std::collections::HashSet;
use std::sync::LazyLock;

use crate::knowledge::filter::facts::{FACTS, texts};

/// Characters a finding's title may take.
pub const TITLE_CHARS: usize = 100;

/// Words that open a sentence giving advice (checked lower-case).
pub const ADVICE_VERBS: &[&str] = &[
    "add",
    "avoid",
    "batch",
    "call",
    "check",
    "cover",
    "document",
    "don't",
    "drop",
    "extract",
    "fetch",
    "follow",
    "handle",
    "keep",
    "load",
    "log",
    "make",
    "map",
    "mark",
    "move",
    "never",
    "pass",
    "prefer",
    "propagate",
    "put",
    "remove",
    "rename",
    "replace",
    "return",
    "split",
    "use",
    "validate",
    "wrap",
    "write",
    "always",
    "do",
    "test",
    "guard",
    "lock",
    "release",
    "close",
    "amend",
    "squash",
    "sign",
    "update",
    "include",
    "mention",
    "consider",
    "stick",
    "name",
    "let's",
    "start",
    "note",
    "integrate",
    "provide",
];
/// Phrases that make a sentence state a norm or a request wherever they occur (checked
/// lower-case, padded with spaces, after hedges are dropped).
pub const ADVICE_PHRASES: &[&str] = &[
    " should ",
    " shouldn't ",
    " must ",
    " need to ",
    " needs to ",
    " needs a ",
    " needs an ",
    " have to ",
    " has to ",
    " cannot ",
    " meant to ",
    " we don't ",
    " we do not ",
    " don't forget",
    " instead",
    "prefer ",
    "avoid ",
    "better to ",
    "simpler to ",
    "easier to ",
    "safer to ",
    " we want to ",
    "rather than",
    " would rather ",
    "'d rather ",
    " please ",
    " could you ",
    " can you ",
    " would you ",
    " can we ",
    "in the future",
    "next time",
];
/// Phrases about the writer's mind, the past or a verdict, which look like advice and are not
/// ("I don't think …", "should have worked", "this change should be fine"); dropped before
/// [`ADVICE_PHRASES`] are looked for.
pub const HEDGES: &[&str] = &[
    "don't think",
    "don't know",
    "don't see",
    "don't mind",
    "don't understand",
    "don't remember",
    "do not think",
    "do not know",
    "should have",
    "shouldn't have",
    "needs to be merged",
    "should be fine",
    "should be ok",
    "should be okay",
    "should be alright",
    "should be good",
    "should be safe",
    "should be correct",
    "should be enough",
    "should be sufficient",
    "should work",
];
/// Words of thanks, greeting, apology or approval, which speak to the person (lower-case, whole
/// words): chatter.
pub const COURTESIES: &[&str] = &[
    "thanks", "thank", "sorry", "lgtm", "congrats", "hi", "hello", "hey", "welcome",
];
/// Openings that reassure the reader ("Don't worry, 1.1.0 won't be a long wait"): an imperative
/// in form, advice about nothing (lower-case).
pub const REASSURANCES: &[&str] = &["don't worry", "do not worry", "no worries", "never mind"];
/// Words that point at something the reader of a title cannot see ("Remove this").
pub const DEICTIC: &[&str] = &[
    "this", "that", "these", "those", "it", "them", "here", "there", "one",
];
/// Words that open a sentence about the writer rather than the code.
pub const FIRST_PERSON: &[&str] = &["i", "i'm", "i've", "i'll", "i'd", "we've", "we'll", "my"];
/// Phrases that make a sentence about the writer wherever they occur (lower-case, padded).
pub const WRITER_PHRASES: &[&str] = &[
    " i have to ",
    " i need to ",
    " i should ",
    " i'm ",
    " i am ",
    " i suspect ",
    " i guess ",
];
/// The emoji codes of `facts.toml` (`:+1:`, `:tada:`), which decorate a remark.
pub static EMOJI_CODES: LazyLock<HashSet<&str>> =
    LazyLock::new(|| texts(&FACTS.emoji_codes).collect());
/// Words that open a reply to someone rather than a remark on the code.
pub const REPLY_OPENERS: &[&str] = &[
    "yes", "yeah", "yea", "yep", "right", "ok", "okay", "agreed", "sure", "true", "indeed",
    "correct", "fair",
];
/// Words left dangling when the reference after them goes ("see #12").
pub const DANGLING: &[&str] = &[
    "in", "at", "by", "of", "see", "from", "to", "via", "on", "cc",
];
/// Words that cannot end a title nor a cut text: articles and other determiners, prepositions,
/// conjunctions, subject pronouns and auxiliaries ("a merge commit in there that needs to be…",
/// "and it…", "in this folder any…").
pub const FUNCTION_WORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "for", "to", "of", "in", "on", "at", "by", "with",
    "from", "into", "as", "than", "that", "which", "is", "are", "was", "were", "be", "been",
    "being", "it", "we", "you", "i", "they", "any", "some", "every", "each", "your", "our",
    "their", "its", "my", "need", "needs", "should", "would", "could", "can", "will", "must",
    "may", "might", "has", "have", "had", "do", "does", "if", "when", "while", "so", "because",
    "where", "whether", "not",
];

/// Words that tie a clause to what came before, or mark it as a reply or an aside, when they open
/// it.
pub const CONNECTIVES: &[&str] = &[
    "also",
    "but",
    "and",
    "so",
    "then",
    "however",
    "therefore",
    "anyway",
    "actually",
    "basically",
    "honestly",
    "well",
    "in fact",
    "that said",
    "btw",
    "fyi",
    "ok",
    "okay",
    "hmm",
    "in the future",
    "next time",
];
/// Clauses that frame what follows as the writer's view.
pub const FRAMES: &[&str] = &[
    "i think that",
    "i think",
    "i'm pretty sure",
    "pretty sure",
    "looks like",
    "seems like",
    "note that",
    "imho",
    "imo",
    "tbh",
];
/// The ASCII smileys of `facts.toml` (`:-)`, `;)`), in its order.
pub static SMILEYS: LazyLock<Vec<&str>> = LazyLock::new(|| texts(&FACTS.smileys).collect());

/// The words of a lower-cased sentence, without the punctuation around them (apostrophes kept).
pub fn words_of(lower: &str) -> Vec<&str> {
    lower
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\''))
        .collect()
}
