// The release label; the build stamps it, a source checkout reads package.json's version.
export const VERSION: string = process.env.BURROW_BUILD_VERSION ?? '0.1.0-dev';
