// npm's preinstall: one line in words instead of npm's "Unsupported engine" warnings (which
// .npmrc leaves out). Burrow brings its own Node 24 (the `node` package, node_modules/.bin/node)
// and npm runs every script with it — this one too, once it is installed — so the Node that
// matters here is the one running npm, which npm names in npm_config_user_agent.
const agent = process.env.npm_config_user_agent ?? '';
const version = /\bnode\/v(\d+\.\S+)/.exec(agent)?.[1];
if (version && version.split('.')[0] !== '24')
  console.log(
    `npm runs on this computer's Node ${version}; Burrow brings its own Node 24 (node_modules/.bin/node), which ` +
      `npm start, npm test and the other scripts use, so npm's "Unsupported engine" warnings do not apply and are not shown (.npmrc).`,
  );
