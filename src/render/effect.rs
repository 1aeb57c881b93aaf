//! A lesson's effect line (behaviour §3.4), for the findings issue (markdown) and the web page
//! (plain text): the figures come from `knowledge::effect`, the sentences from `wording`.

use crate::domain::effect::{LessonEffect, MIN_PULL_REQUESTS, Verdict, Window};
use crate::render::evidence::files_list;
use crate::render::links::plain;
use crate::render::wording;

/// Directories named in a line; more are counted.
const SCOPE_SHOWN: usize = 2;
/// Characters of one directory on the web page.
const SCOPE_CHARS: usize = 120;

/// The line in markdown: the directories as code spans. `None` until a pull request touching
/// the lesson's paths was reviewed since it was written down: there is nothing to say yet.
pub fn markdown_line(effect: &LessonEffect) -> Option<String> {
    shown(effect).then(|| line(effect, &files_list(&effect.scope, SCOPE_SHOWN)))
}

/// The line as plain text: the directories as written, flattened and capped; `None` as for
/// [`markdown_line`].
pub fn plain_line(effect: &LessonEffect) -> Option<String> {
    if !shown(effect) {
        return None;
    }
    let mut scope: Vec<String> = effect
        .scope
        .iter()
        .take(SCOPE_SHOWN)
        .map(|entry| plain(entry, SCOPE_CHARS))
        .collect();
    if effect.scope.len() > SCOPE_SHOWN {
        scope.push(wording::more_files(effect.scope.len() - SCOPE_SHOWN));
    }
    Some(line(effect, &scope.join(", ")))
}

fn shown(effect: &LessonEffect) -> bool {
    effect.since.pull_requests > 0
}

fn line(effect: &LessonEffect, scope: &str) -> String {
    if effect.ratio.verdict == Verdict::TooEarly {
        return wording::lesson_effect_too_early(
            (&effect.before, &effect.since),
            MIN_PULL_REQUESTS,
            scope,
        );
    }
    let rate = |w: &Window| w.per_hundred().unwrap_or(0.0);
    wording::lesson_effect(
        (&effect.before, &effect.since),
        (rate(&effect.before), rate(&effect.since)),
        scope,
        effect.ratio.verdict,
        effect.still_repeated,
    )
}
