//! Named units a deployment or a repository switches off by name: the noise filter's rules
//! (`filter::rules`) and the built-in titles' cuts (`synthesize::title::cuts`). The benches
//! (`gitlore-bench noise-rules`, `title-cuts`) print what switching each off does.

use std::collections::BTreeSet;

use anyhow::{Result, bail};

/// A unit that can be switched off by its name.
pub trait Named: Copy + Ord + 'static {
    /// What the units are called in an error: "noise rule", "title cut".
    const KIND: &'static str;
    /// Every unit.
    const ALL: &'static [Self];

    /// Its name in settings and reports.
    fn name(self) -> &'static str;

    /// The unit of this name.
    fn parse(name: &str) -> Result<Self> {
        let name = name.trim();
        match Self::ALL.iter().find(|unit| unit.name() == name) {
            Some(unit) => Ok(*unit),
            None => {
                let names: Vec<&str> = Self::ALL.iter().map(|unit| unit.name()).collect();
                bail!(
                    "`{name}` is not a {}; they are: {}",
                    Self::KIND,
                    names.join(", ")
                )
            }
        }
    }
}

/// The units switched off (none by default).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Switches<T> {
    off: BTreeSet<T>,
}

impl<T> Default for Switches<T> {
    fn default() -> Switches<T> {
        Switches {
            off: BTreeSet::new(),
        }
    }
}

impl<T: Named> Switches<T> {
    /// Every unit on but `off`.
    pub fn off(off: impl IntoIterator<Item = T>) -> Switches<T> {
        Switches {
            off: off.into_iter().collect(),
        }
    }

    /// The switches of unit names, as a deployment or a repository lists them.
    pub fn parse(names: &[String]) -> Result<Switches<T>> {
        let off = names
            .iter()
            .filter(|name| !name.trim().is_empty())
            .map(|name| T::parse(name))
            .collect::<Result<_>>()?;
        Ok(Switches { off })
    }

    pub fn is_on(&self, unit: T) -> bool {
        !self.off.contains(&unit)
    }

    /// The names of the units off, in their order.
    pub fn names_off(&self) -> Vec<&'static str> {
        self.off.iter().map(|unit| unit.name()).collect()
    }
}
