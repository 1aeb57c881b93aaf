//! Hand-written review comments around five clear themes, plus unrelated remarks: the corpus
//! the theme tests cluster.

/// Five themes of eight review comments each, written around one lesson per theme.
pub const THEMES: [[&str; 8]; 5] = [
    [
        "This `unwrap()` will panic when the config file is missing; return an error instead.",
        "Please don't unwrap here, a malformed payload would panic the worker. Propagate the error with `?`.",
        "unwrap on user input again: this panics on an empty body. Map it to an error.",
        "Avoid `unwrap()` in the handler, a panic takes the whole request down. Return an error.",
        "`expect` is the same as unwrap: it will panic in production. Return an error with context.",
        "This unwrap can panic if the header is absent. Handle the error instead of panicking.",
        "Replace the unwrap with proper error handling; panicking on a bad row is not acceptable.",
        "Another unwrap that can panic on bad input, please return an error here too.",
    ],
    [
        "Please add a unit test for the empty input case.",
        "Can you add a test covering the error case? Only the happy path is tested.",
        "Missing test for the edge case where the list is empty.",
        "Add a regression test for this bug so it doesn't come back.",
        "There is no test for the timeout case, please add one.",
        "This branch isn't covered by any test; add a unit test for it.",
        "Please write a test for the empty string input before merging.",
        "A test for the error case would be good here, the unit tests only cover success.",
    ],
    [
        "This runs one SQL query per row inside the loop, an N+1 query. Fetch them in one query.",
        "N+1 query: the loop issues a query for each order. Batch it with a join.",
        "Querying the database inside this loop will be slow for big repos; do one query up front.",
        "Each iteration runs another SELECT query, which is the N+1 query pattern. Use a join.",
        "The query inside the loop hits the database once per item. Batch the query.",
        "This loop makes a database query per comment; one query with IN would be much faster.",
        "Classic N+1: a query per user in the loop. Load them with a single query.",
        "Move the query out of the loop, one database round trip per row is too slow.",
    ],
    [
        "Naming: please use snake_case for function names, `getUserName` should be `get_user_name`.",
        "Function names are snake_case in this codebase; rename `parseConfig` to `parse_config`.",
        "Please rename this to snake_case, camelCase names don't follow our naming convention.",
        "Our naming convention is snake_case for variables; `retryCount` should be `retry_count`.",
        "Rename `fetchAll` to `fetch_all` to match the snake_case naming used everywhere else.",
        "camelCase variable name here; we use snake_case naming, please rename.",
        "Naming nit: `maxSize` → `max_size`, snake_case like the rest of the module.",
        "Please follow the snake_case naming convention for this function name.",
    ],
    [
        "Please add a doc comment explaining what this public function returns.",
        "This public struct needs a doc comment describing its fields.",
        "Missing doc comment on the public API; document what the function returns and when it fails.",
        "Add a doc comment to this public method, the docs page shows nothing for it.",
        "Could you document this public function? A short doc comment on what it returns is enough.",
        "The public function has no doc comment; please document its arguments and return value.",
        "Document the public trait with a doc comment explaining when to implement it.",
        "No doc comment on this public type, please add one describing what it represents.",
    ],
];

/// Remarks that belong to no theme.
pub const UNRELATED: [&str; 8] = [
    "Which team owns the analytics dashboard for the mobile app?",
    "What's the rollout plan for existing installations?",
    "Is the staging cluster still running the old kernel?",
    "Who approves travel for the conference next spring?",
    "The Windows runner image changed last week, which explains the flaky download.",
    "Who owns the billing integration these days?",
    "Who signs off on the holiday rota this year?",
    "Can we schedule the migration for a weekend with low traffic?",
];
