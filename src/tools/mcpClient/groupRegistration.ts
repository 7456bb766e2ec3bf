/**
 * Keeps one MCP server's group in the registry in step with its supervisor's state: registered when
 * the server runs, registered again only when its tools changed (so a re-list that changes nothing
 * tells the backend and the MCP clients nothing), removed when it fails or stops. A refusal at
 * registration (a name another group holds: NAME_TAKEN) is kept, for the Tool Groups view to show.
 */
import type { Disposable } from '../../base/events';
import type { Logger } from '../../base/logger';
import type { ToolRegistry } from '../../core/registry';
import { CodedError } from '../../protocol';
import { buildMcpGroup, mcpSource } from './group';
import type { McpServerState, McpServerSupervisor } from './supervisor';

export class McpGroupRegistration implements Disposable {
  private registration: Disposable | undefined;
  private signature = '';
  private refusal: string | undefined;

  constructor(
    private readonly registry: ToolRegistry,
    private readonly supervisor: McpServerSupervisor,
    private readonly logger: Logger,
  ) {}

  /** Why the server's tools are not registered although it runs (`CODE: message`), if they are not. */
  get refused(): string | undefined {
    return this.refusal;
  }

  /** Follows a state of the supervisor. */
  update(state: McpServerState): void {
    const name = this.supervisor.config.name;
    if (state.kind === 'running') {
      const signature = JSON.stringify(state.tools);
      if (signature === this.signature && (this.registration || this.refusal !== undefined)) return;
      this.unregister();
      this.signature = signature;
      const built = buildMcpGroup(name, state.tools, (tool, args, signal, structured) => this.supervisor.callTool(tool, args, signal, structured), (n) => this.registry.holdsFunctionName(n));
      for (const s of built.skipped) this.logger.warn(`MCP server "${name}": tool left out: ${s}`);
      try {
        this.registration = this.registry.register(built.group, built.tools, { source: mcpSource(name) });
        this.logger.info(`MCP server "${name}" offers ${built.tools.length} tools as the group ${built.group.name}`);
      } catch (e) {
        this.refusal = e instanceof CodedError ? `${e.code}: ${e.message}` : (e as Error).message;
        this.logger.error(`MCP server "${name}": could not register its tools: ${this.refusal}`);
      }
    } else if (state.kind === 'failed' || state.kind === 'stopped') {
      this.unregister();
      this.signature = '';
    }
  }

  dispose(): void {
    this.unregister();
  }

  private unregister(): void {
    this.registration?.dispose();
    this.registration = undefined;
    this.refusal = undefined;
  }
}
