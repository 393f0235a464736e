// Imported first by component tests that check colors: chalk decides its color level once, when
// Ink first loads it, and a test worker's stdout is not a TTY, so without this every frame is plain.
process.env['FORCE_COLOR'] = '1';
delete process.env['NO_COLOR'];
