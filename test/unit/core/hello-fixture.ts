import { PROTOCOL, type Hello } from '../../../src/protocol';

/** The smallest valid hello: no folders, no tools. Connection tests send it; they test the socket, not the catalog. */
export const hello = (): Hello => ({
  type: 'hello',
  protocol: PROTOCOL,
  client: { name: 'test', version: '0', ide: 'none' },
  workspace: { folders: [], trusted: true },
  toolGroups: [],
});
