declare const NIB_VERSION: string;

/** nib's version: the build defines NIB_VERSION from package.json; 'dev' when run from source. */
export const VERSION = typeof NIB_VERSION === 'string' ? NIB_VERSION : 'dev';
