/**
 * Edit before allow, on the chat's permission card: the field for the one argument a prompt lets
 * the user change (RunInTerminal's command, a single-target tool's path), prefilled with the
 * agent's value. Sending it allows nothing: the extension checks the edited call and shows its own
 * prompt for it (src/core/editedCall.ts), which the user allows or denies like any other.
 */
import { MAX_EDITED_VALUE, type ChatApproval } from '../protocol/webview';

type Editable = NonNullable<ChatApproval['editable']>;

export class ApprovalEditField {
  readonly root: HTMLElement;
  private readonly field: HTMLTextAreaElement;

  /** `submit` gets the edited value; `buttons` are registered so the card disables them with its own once an answer is sent. */
  constructor(editable: Editable, submit: (value: string) => void, register: (button: HTMLButtonElement) => void) {
    this.root = document.createElement('div');
    this.root.className = 'approval-edit';
    this.root.hidden = true;
    const label = document.createElement('label');
    label.className = 'approval-edit-label';
    label.textContent = `Your ${editable.argument} (checked and shown to you again before it runs):`;
    this.field = document.createElement('textarea');
    this.field.className = 'approval-edit-field';
    this.field.maxLength = MAX_EDITED_VALUE;
    this.field.rows = Math.min(6, Math.max(2, editable.value.split('\n').length));
    this.field.spellcheck = false;
    this.field.value = editable.value;
    this.field.setAttribute('aria-label', `Edit the ${editable.argument} before allowing`);
    label.append(this.field);
    const review = document.createElement('button');
    review.type = 'button';
    review.className = 'approval-button allow approval-edit-submit';
    review.textContent = 'Review Edited Call';
    review.addEventListener('click', () => {
      if (this.field.value.trim() !== '') submit(this.field.value);
    });
    const cancel = document.createElement('button');
    cancel.type = 'button';
    cancel.className = 'approval-button secondary approval-edit-cancel';
    cancel.textContent = 'Cancel Edit';
    cancel.addEventListener('click', () => {
      this.field.value = editable.value;
      this.root.hidden = true;
    });
    register(review);
    register(cancel);
    const actions = document.createElement('div');
    actions.className = 'approval-actions';
    actions.append(review, cancel);
    this.root.append(label, actions);
  }

  /** Shows the field and puts the cursor in it: the user asked to edit. */
  open(): void {
    this.root.hidden = false;
    this.field.focus();
  }
}
