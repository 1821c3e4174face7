//! Scenario and property tests of the scheduling core: a `TestEnv` drives a
//! real `Core` with builders; every step runs `sanity_check()`.

mod array;
mod dependency;
mod ending;
mod env;
mod head;
mod journal;
mod placement;
mod props;
mod queue;
mod step;
