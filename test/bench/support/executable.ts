// Imported first by the benches that start a server: they measure the product, the built
// executable, unless BURROW_TEST_SERVER=source is set. Must come before test/support/server.ts
// (which reads the switch when it loads); ES modules are evaluated in the order imported.
process.env.BURROW_TEST_SERVER ??= 'executable';
