-- Driven by tests/editors/test_nvim.py: open the config file with the real
-- plugin, then :KconfigMenu, and use it with its keys as a user would
-- (<CR> expands, <Space> sets, / searches, ? explains, gd jumps); write
-- what the buffers showed as JSON to $KCONFIG_LS_OUT.
local out_path = os.getenv('KCONFIG_LS_OUT')
local file = os.getenv('KCONFIG_LS_FILE')
local result = { steps = {} }

local function finish()
  local f = io.open(out_path, 'w')
  f:write(vim.fn.json_encode(result))
  f:close()
  vim.cmd('qall!')
end

local function keys(text)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(text, true, false, true), 'x', false)
end

local function lines(buf)
  return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end

-- Put the cursor on the menu line containing `text`.
local function go_to(buf, text)
  for i, line in ipairs(lines(buf)) do
    if line:find(text, 1, true) then
      vim.api.nvim_win_set_cursor(0, { i, 0 })
      return line
    end
  end
  error('no menu line with ' .. text .. ' in:\n' .. table.concat(lines(buf), '\n'))
end

local function has_line(buf, text)
  for _, line in ipairs(lines(buf)) do
    if line:find(text, 1, true) then return line end
  end
  return nil
end

local ok, err = pcall(function()
  local kconfig = require('kconfig_ls')
  kconfig.setup({ cmd = vim.fn.json_decode(os.getenv('KCONFIG_LS_CMD')) })
  vim.cmd('filetype on')
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local config_buf = vim.api.nvim_get_current_buf()
  result.attached = vim.wait(60000, function()
    local status = kconfig.client(config_buf) and kconfig.execute('kconfig.status', {}, config_buf)
    return status ~= nil and status.loaded == true
  end, 100)
  if not result.attached then return end

  vim.cmd('KconfigMenu')
  local menu_buf = vim.api.nvim_get_current_buf()
  result.top = lines(menu_buf)

  go_to(menu_buf, 'Device drivers')
  keys('<CR>')
  result.expanded = lines(menu_buf)

  go_to(menu_buf, '[NET]')
  keys('<Space>')
  result.config_after_set = vim.wait(10000, function()
    return vim.tbl_contains(lines(config_buf), 'CONFIG_NET=y')
  end, 50)
  result.config_lines = lines(config_buf)
  result.net_line = has_line(menu_buf, '[NET]')
  -- (NETDEVICES shows once the server read the edited buffer: menuChanged.)
  result.netdevices_shown = vim.wait(10000, function() return has_line(menu_buf, '[NETDEVICES]') ~= nil end, 50)
  result.after_refresh = lines(menu_buf)

  -- <Space> on a choice: pick the entry (vim.ui.select answered with the second).
  vim.ui.select = function(items, _, on_choice) on_choice(items[2]) end
  go_to(menu_buf, 'Default I/O scheduler')
  keys('<Space>')
  result.choice_chosen = vim.wait(10000, function()
    return vim.tbl_contains(lines(config_buf), 'CONFIG_IOSCHED_NOOP=y')
  end, 50)

  -- A value the tree does not allow: refused, the buffer unchanged.
  local before = lines(config_buf)
  local refused = require('kconfig_ls.menu').set_value('E1000', 'y')
  result.refused_reason = refused and refused.reason
  result.config_unchanged = vim.deep_equal(before, lines(config_buf))

  keys('/e1000<CR>')
  result.search = lines(menu_buf)
  go_to(menu_buf, '[E1000]')
  keys('?')
  result.why = lines(vim.api.nvim_get_current_buf())
  vim.cmd('close')
  vim.api.nvim_set_current_win(vim.fn.bufwinid(menu_buf))
  keys('<BS>')
  result.back = lines(menu_buf)[1]
  -- <CR> on a search result: the menu, opened down to it.
  keys('/e1000<CR>')
  go_to(menu_buf, '[E1000]')
  keys('<CR>')
  result.revealed = { header = lines(menu_buf)[1], line = vim.api.nvim_get_current_line() }
  go_to(menu_buf, '[NET]')
  keys('gd')
  result.definition = { file = vim.api.nvim_buf_get_name(0), line = vim.api.nvim_win_get_cursor(0)[1] }
end)
if not ok then result.error = tostring(err) end
finish()
