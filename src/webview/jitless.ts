/**
 * Imported first by main.ts, before any schema is built. The view's CSP has no 'unsafe-eval'; zod's
 * JIT would otherwise probe `new Function`, which the CSP refuses and reports as a violation.
 */
import { z } from 'zod';

z.config({ jitless: true });
