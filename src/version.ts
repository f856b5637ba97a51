// The release label: the build stamps it into the executable (build/bundle.ts defines
// process.env.BURROW_BUILD_VERSION); from a source checkout it is `<package version>-dev`.
// `burrow --version`, /api/features `version` and /api/openapi.json `x-release` all say this.
export const VERSION: string = process.env.BURROW_BUILD_VERSION ?? '0.1.0-dev';
