import { benchExtensionAttacks } from './extensionAttacks';
import { attackLines } from './resilienceReport';
void benchExtensionAttacks().then((r) => { console.log(attackLines(r).join('\n')); process.exit(0); }, (e) => { console.error(e); process.exit(1); });
