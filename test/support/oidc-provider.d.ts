// oidc-provider ships no types; the tests use a handful of its calls (Provider, callback,
// interactionFinished), typed loosely here rather than pulling a second copy of its API.
declare module 'oidc-provider' {
  const Provider: any;
  export default Provider;
}
