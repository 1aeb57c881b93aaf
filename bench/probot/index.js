// Minimal Probot app: the baseline of gitlore's webhook-ingress benchmark (SPEC §9).
//
// It registers a handler for `pull_request_review_comment` that does nothing, so what is
// measured is Probot's own ingress: reading the body, verifying `X-Hub-Signature-256`,
// parsing the JSON and answering. Unlike gitlore it stores nothing.
//
// Start (all settings come from the environment, as Probot reads them):
//   APP_ID=1 PRIVATE_KEY_PATH=../../tests/fixtures/test-app-key.pem WEBHOOK_SECRET=s \
//   HOST=127.0.0.1 PORT=3000 LOG_LEVEL=warn LOG_FORMAT=json node index.js
// Webhook path: Probot's default, POST /api/github/webhooks; health: GET /ping answers "PONG".
// The app function is also the default export, so `npx probot run ./index.js` works too.
import { pathToFileURL } from "node:url";
import { run } from "probot";

/** @param {import("probot").Probot} app */
export default function app(app) {
  app.on("pull_request_review_comment", async () => {});
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await run(app);
}
