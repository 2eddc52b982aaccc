// The README's Playwright example (section "Use it in your tests"), as written there but for the import path.
import { expect, test } from '../../dist/playwright.js';

test('lists only my posts', async ({ page, request, mockapi }) => {
  await request.post(`${mockapi.api}/posts`, { data: { user_id: 1, title: 'Mine', body: 'Hello' } });
  await page.goto(`${mockapi.api}/posts?title=Mine`);
  await expect(page.locator('body')).toContainText('"title":"Mine"');
});
