/** The unit-test host's Tasks group: the tasks the test lists (running one is the catalog's scripted runCommand). */
import type { TaskInfo } from '../../src/core/host';

export class FakeTasks {
  tasks: TaskInfo[] = [];

  async listTasks(): Promise<TaskInfo[]> {
    return this.tasks;
  }
}
