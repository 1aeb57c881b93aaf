//! gitlore's benches: the scorecards that train the built-in classifier's models or run the
//! service's whole pipeline on the labelled corpus. `quality`: the noise filter and the
//! classifier, with training and leave-one-repository-out; `scorecard`: the findings. The
//! `gitlore-bench` binary prints them and times the service; `tests/` holds their floors.

pub mod quality;
pub mod scorecard;
