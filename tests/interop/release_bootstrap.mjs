// The released OpenClaw's own bootstrap-context code, run on one workspace (the oracle of
// test_setup_state_release.py): which bootstrap files a new main session of the agent loads, whether the
// release counts the workspace's setup as completed (read only, as its context builder asks) and whether
// BOOTSTRAP.md is pending. Usage: node release_bootstrap.mjs <openclaw package dir> <config.json> <agent id>
// <workspace>; the state dir comes from OPENCLAW_STATE_DIR. Prints one JSON object.
// The dist chunks are content-hashed and their exports minified, so each function is found by the
// chunk that defines it and the export alias that chunk gives it.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [packageDir, configPath, agentId, workspaceDir] = process.argv.slice(2);
const dist = path.join(packageDir, "dist");

async function releaseFunction(name) {
  for (const file of fs.readdirSync(dist)) {
    if (!file.endsWith(".mjs") && !file.endsWith(".js")) continue;
    const text = fs.readFileSync(path.join(dist, file), "utf8");
    if (!text.includes(`async function ${name}(`) && !text.includes(`function ${name}(`)) continue;
    const exported = text.match(new RegExp(`\\b${name} as ([A-Za-z_$][\\w$]*)\\b`));
    if (!exported) continue;
    const module = await import(pathToFileURL(path.join(dist, file)).href);
    return module[exported[1]];
  }
  throw new Error(`${name} not found in ${dist}`);
}

const config = JSON.parse(fs.readFileSync(configPath, "utf8"));
const resolveBootstrapContextForRun = await releaseFunction("resolveBootstrapContextForRun");
const isWorkspaceSetupCompleted = await releaseFunction("isWorkspaceSetupCompleted");
const isWorkspaceBootstrapPending = await releaseFunction("isWorkspaceBootstrapPending");

let setupCompleted;
try {
  setupCompleted = await isWorkspaceSetupCompleted(workspaceDir, { readOnly: true });
} catch (error) {
  setupCompleted = `error: ${error.message}`;
}
const { bootstrapFiles, contextFiles } = await resolveBootstrapContextForRun({
  workspaceDir,
  config,
  agentId,
  sessionKey: `agent:${agentId}:main`,
});
const pending = await isWorkspaceBootstrapPending(workspaceDir);
process.stdout.write(
  JSON.stringify({
    setupCompleted,
    bootstrapPending: pending,
    files: bootstrapFiles.map((file) => ({ name: file.name, path: file.path, missing: Boolean(file.missing) })),
    contextFiles: contextFiles.map((file) => file.path),
  }) + "\n",
);
process.exit(0);
