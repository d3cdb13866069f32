import fs from 'node:fs';
export const x = fs.existsSync('a');
