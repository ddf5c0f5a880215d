/**
 * A throwaway certificate authority made by the test itself (Debian's `openssl`), and one server
 * certificate it signs for every named host of the topology. Nothing is installed anywhere: the
 * browsers are told to trust this CA for their own launch only (topology.ts), and the files live
 * in the run's temporary directory.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runOk } from '../packaging/consumer.js';

export interface Certificates {
  /** The CA's certificate (PEM file): what a client that trusts the test CA loads. */
  caPath: string;
  /** The server's certificate alone (what WebKit is told to accept per host). */
  serverPath: string;
  /** The server's certificate followed by the CA's (what nginx sends), and its key. */
  chainPath: string;
  keyPath: string;
  /** The server certificate's subjectAltName DNS names. */
  hosts: readonly string[];
}

/** Makes a CA named `name` in `dir` and a server certificate for `hosts` signed by it (P-256, valid two days). */
export async function makeCertificates(dir: string, hosts: readonly string[], name = 'embedded-dashboard topology test CA'): Promise<Certificates> {
  const path = (file: string) => join(dir, file);
  const openssl = (...args: string[]) => runOk('openssl', args, { cwd: dir, timeoutMs: 30_000 });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  await openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  await openssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', `/CN=${hosts[0]}`);
  writeFileSync(
    path('server.ext'),
    [
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature',
      'extendedKeyUsage=serverAuth',
      `subjectAltName=${hosts.map((h) => `DNS:${h}`).join(',')}`,
      '',
    ].join('\n'),
  );
  await openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'server.ext',
  );
  const ca = readFileSync(path('ca.pem'), 'utf8');
  writeFileSync(path('chain.pem'), readFileSync(path('server.pem'), 'utf8') + ca);
  return { caPath: path('ca.pem'), serverPath: path('server.pem'), chainPath: path('chain.pem'), keyPath: path('server.key'), hosts };
}
