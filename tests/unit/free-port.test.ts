// Ports handed out for servers the tests and serve start: never the same one twice in a row, even though the OS
// often offers a port it has just released again.
import { freePort } from '../../devkit/free-port';

describe('freePort', () => {
  it('never hands out a port it handed out a moment ago', async () => {
    // One after another, as a server's nine ports are chosen: the OS alone repeats some of 1,000 (it did 544 times in
    // 3,000).
    const ports: number[] = [];
    for (let i = 0; i < 1000; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
  });
});
