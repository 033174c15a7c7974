-- :KconfigMenu: the kernel's menu as menuconfig shows it, in a buffer, from
-- the server's configurator protocol (kconfig/menu, kconfig/search,
-- kconfig.setValue, kconfig/menuChanged).
--
--   <CR>     expand or collapse a menu; on a number or string, enter a value;
--            on a search result, show it in the menu
--   <Space>  the next value (n -> m -> y for a tristate; choose a choice entry;
--            on a choice, pick the entry to choose)
--   /        search by name, prompt or help (<BS> goes back to the menu)
--   ?        why the entry has its value
--   gd       the entry's definition
--   a        show all entries, the invisible ones greyed
--   R        ask the server again;  q closes
local M = {}

-- The one menu buffer and what its lines show.
M.state = nil

local ns = vim.api.nvim_create_namespace('kconfig_ls_menu')

local function core() return require('kconfig_ls') end

local function request(method, params)
  local client = core().client()
  if not client then
    vim.notify('kconfig-ls is not running (open a Kconfig or config file first)', vim.log.levels.WARN)
    return nil
  end
  local response = client.request_sync(method, params, 20000, 0)
  if not response then
    vim.notify('kconfig-ls: no answer to ' .. method, vim.log.levels.ERROR)
    return nil
  end
  if response.err then
    vim.notify('kconfig-ls: ' .. (response.err.message or vim.inspect(response.err)), vim.log.levels.ERROR)
    return nil
  end
  return response.result
end

-- An entry's stable name across re-loads (ids are per loaded tree).
local function key_of(entry)
  return entry.kind .. ':' .. (entry.symbol ~= nil and entry.symbol ~= vim.NIL and entry.symbol or entry.prompt or '')
end

local function is_set(value) return value ~= nil and value ~= vim.NIL end

-- menuconfig's marks: [*] bool, <M> tristate, (X) choice entry, (42) number.
local function value_mark(entry, in_choice)
  local value = entry.value
  if entry.kind == 'menu' or entry.kind == 'comment' then return '   ' end
  if entry.kind == 'choice' then return '-->' end
  if in_choice then return value == 'y' and '(X)' or (value == 'm' and '{M}' or '( )') end
  if entry.type == 'bool' then return value == 'y' and '[*]' or '[ ]' end
  if entry.type == 'tristate' then
    return value == 'y' and '<*>' or (value == 'm' and '<M>' or '< >')
  end
  if is_set(value) then return '(' .. value .. ')' end
  return '   '
end

local function line_of(row)
  local depth, entry, in_choice = row.depth, row.entry, row.in_choice
  local fold = ' '
  if entry.hasChildren and entry.kind ~= 'choice' then fold = row.open and 'v' or '>' end
  local text = string.rep('  ', depth) .. fold .. ' ' .. value_mark(entry, in_choice) .. ' '
  local prompt = is_set(entry.prompt) and entry.prompt or ''
  if entry.kind == 'comment' then prompt = '*** ' .. prompt .. ' ***' end
  text = text .. prompt
  if entry.kind == 'choice' and row.selected then text = text .. ' (' .. row.selected .. ')' end
  if is_set(entry.symbol) then text = text .. '  [' .. entry.symbol .. ']' end
  if row.path then text = text .. '  in ' .. table.concat(row.path, ' > ') end
  return text
end

-- The rows under `parent_id` (nil: the top), expanded as the user left them.
local function rows_under(state, parent_id, depth, out)
  local answer = request('kconfig/menu', { node = parent_id or vim.NIL, showAll = state.show_all })
  if not answer then return out end
  state.stale = answer.stale and answer.error or nil
  for _, entry in ipairs(answer.nodes) do
    local open = state.expanded[key_of(entry)]
    -- (menuconfig shows a config's dependents indented under it; menus
    -- and menuconfig entries open on <CR>.)
    if open == nil then open = entry.kind == 'config' end
    local row = { entry = entry, depth = depth, in_choice = entry.inChoice, open = open }
    table.insert(out, row)
    if entry.kind == 'choice' then
      -- (A choice's entries always show under it, as in menuconfig's
      -- radio list; its line says which one is chosen.)
      local first = #out
      rows_under(state, entry.id, depth + 1, out)
      for i = first + 1, #out do
        if out[i].depth == depth + 1 and out[i].entry.value == 'y' then row.selected = out[i].entry.prompt end
      end
    elseif entry.hasChildren and row.open then
      rows_under(state, entry.id, depth + 1, out)
    end
  end
  return out
end

local function render(state)
  local buf = state.buf
  if not vim.api.nvim_buf_is_valid(buf) then return end
  local lines, header
  if state.results then
    header = { 'Search: ' .. state.query .. '  (' .. #state.results
               .. ' found; <CR> shows it in the menu, <BS> goes back)' }
  else
    header = { 'Kconfig menu' .. (state.show_all and ' (all entries)' or '') ..
               '  <CR> open/enter  <Space> next value  / search  ? why  gd definition  a all  q quit' }
    if state.stale then table.insert(header, '(the last good tree: ' .. state.stale .. ')') end
  end
  local rows = state.results or state.rows
  lines = vim.deepcopy(header)
  for _, row in ipairs(rows) do table.insert(lines, line_of(row)) end
  state.first_row = #header + 1
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  vim.api.nvim_buf_add_highlight(buf, ns, 'Title', 0, 0, -1)
  for i, row in ipairs(rows) do
    if row.entry.visible == false then
      vim.api.nvim_buf_add_highlight(buf, ns, 'Comment', #header + i - 1, 0, -1)
    end
  end
end

-- Ask the server again for everything shown (after a re-load).
function M.refresh()
  local state = M.state
  if not state or not vim.api.nvim_buf_is_valid(state.buf) then return end
  state.rows = rows_under(state, nil, 0, {})
  if state.results then state.results = M.search_rows(state.query) end
  render(state)
end

local function row_at_cursor()
  local state = M.state
  if not state then return nil end
  local line = vim.api.nvim_win_get_cursor(0)[1]
  local rows = state.results or state.rows
  return rows[line - state.first_row + 1]
end

-- Set a symbol through the server; the config buffer gets the edit, the
-- menu the new values of everything that changed.
function M.set_value(symbol, value)
  local result = core().execute('kconfig.setValue', { symbol, value })
  if not result then return nil end
  if not result.applied then
    local text = 'kconfig-ls: ' .. (result.reason or 'not set')
    if result.howToText then text = text .. '\n' .. result.howToText end
    vim.notify(text, vim.log.levels.WARN)
    return result
  end
  local changed = {}
  for _, c in ipairs(result.changed or {}) do changed[c.symbol] = c end
  local state = M.state
  if state then
    for _, rows in ipairs({ state.rows, state.results or {} }) do
      for _, row in ipairs(rows) do
        local c = is_set(row.entry.symbol) and changed[row.entry.symbol]
        if c then row.entry.value, row.entry.visible = c.value, c.visible end
      end
    end
    -- (Entries that appear or go are the next refresh's: kconfig/menuChanged.)
    render(state)
  end
  return result
end

local function next_value(entry, in_choice)
  if in_choice then return 'y' end
  local allowed = entry.assignable or {}
  if #allowed < 2 then return nil end
  for i, v in ipairs(allowed) do
    if v == entry.value then return allowed[i % #allowed + 1] end
  end
  return allowed[1]
end

-- A choice: pick the entry to choose among those that can be chosen now.
function M.choose_member(row)
  local answer = request('kconfig/menu', { node = row.entry.id, showAll = false })
  local members = {}
  for _, entry in ipairs(answer and answer.nodes or {}) do
    if is_set(entry.symbol) then table.insert(members, entry) end
  end
  if #members == 0 then
    vim.notify('kconfig-ls: no entry of this choice can be chosen now', vim.log.levels.WARN)
    return
  end
  vim.ui.select(members, {
    prompt = (is_set(row.entry.prompt) and row.entry.prompt or 'Choose') .. ': ',
    format_item = function(entry)
      return entry.prompt .. '  [' .. entry.symbol .. ']' .. (entry.value == 'y' and '  (chosen)' or '')
    end,
  }, function(entry)
    if entry and entry.value ~= 'y' then M.set_value(entry.symbol, 'y') end
  end)
end

function M.cycle()
  local row = row_at_cursor()
  if row and row.entry.kind == 'choice' then return M.choose_member(row) end
  if not row or not is_set(row.entry.symbol) then return end
  local entry = row.entry
  if entry.type ~= 'bool' and entry.type ~= 'tristate' then return M.enter() end
  local value = next_value(entry, row.in_choice)
  if not value then
    vim.notify('kconfig-ls: ' .. entry.symbol .. ' cannot be changed here; ? says why', vim.log.levels.WARN)
    return
  end
  return M.set_value(entry.symbol, value)
end

function M.enter()
  local row = row_at_cursor()
  if not row then return end
  local entry = row.entry
  if M.state.results then return M.reveal(entry) end
  if entry.kind == 'choice' then return M.choose_member(row) end
  if entry.hasChildren then
    M.state.expanded[key_of(entry)] = not row.open
    M.refresh()
    return
  end
  if is_set(entry.symbol) and (entry.type == 'int' or entry.type == 'hex' or entry.type == 'string') then
    local value = vim.fn.input(entry.symbol .. ' = ', is_set(entry.value) and entry.value or '')
    if value ~= nil then return M.set_value(entry.symbol, value) end
  elseif entry.type == 'bool' or entry.type == 'tristate' then
    return M.cycle()
  end
end

-- Back to the menu with the menus above `entry` (a search result) open and
-- the cursor on it (all entries shown when it is hidden).
function M.reveal(entry)
  local state = M.state
  if entry.visible == false then state.show_all = true end
  local parent = vim.NIL
  for _, id in ipairs(entry.parents or {}) do
    local answer = request('kconfig/menu', { node = parent, showAll = state.show_all })
    local found = nil
    for _, child in ipairs(answer and answer.nodes or {}) do
      if child.id == id then found = child end
    end
    if not found then break end
    state.expanded[key_of(found)] = true
    parent = id
  end
  state.results = nil
  M.refresh()
  for i, row in ipairs(state.rows) do
    if row.entry.id == entry.id then
      vim.api.nvim_win_set_cursor(0, { state.first_row + i - 1, 0 })
      return row
    end
  end
end

function M.search_rows(query)
  local answer = request('kconfig/search', { query = query })
  local rows = {}
  for _, entry in ipairs(answer and answer.results or {}) do
    table.insert(rows, { entry = entry, depth = 0, path = entry.path, in_choice = entry.inChoice })
  end
  return rows
end

function M.search(query)
  local state = M.state
  if not state then return end
  query = query or vim.fn.input('Search Kconfig: ')
  if not query or query == '' then return end
  state.query = query
  state.results = M.search_rows(query)
  render(state)
  vim.api.nvim_win_set_cursor(0, { math.min(state.first_row, vim.api.nvim_buf_line_count(state.buf)), 0 })
end

function M.back()
  if M.state and M.state.results then
    M.state.results = nil
    render(M.state)
  end
end

function M.why()
  local row = row_at_cursor()
  if row and is_set(row.entry.symbol) then return core().why(row.entry.symbol) end
end

function M.definition()
  local row = row_at_cursor()
  local location = row and row.entry.location
  if not location then return end
  vim.cmd('wincmd p')
  vim.cmd('edit ' .. vim.fn.fnameescape(vim.uri_to_fname(location.uri)))
  vim.api.nvim_win_set_cursor(0, { location.line + 1, 0 })
end

function M.toggle_all()
  M.state.show_all = not M.state.show_all
  M.refresh()
end

-- Open (or go to) the menu buffer.
function M.open()
  if not core().client() then
    vim.notify('kconfig-ls is not running (open a Kconfig or config file first)', vim.log.levels.WARN)
    return nil
  end
  local state = M.state
  if state and vim.api.nvim_buf_is_valid(state.buf) then
    local win = vim.fn.bufwinid(state.buf)
    if win ~= -1 then vim.api.nvim_set_current_win(win) else
      vim.cmd('topleft vsplit')
      vim.api.nvim_win_set_buf(0, state.buf)
    end
    M.refresh()
    return state.buf
  end
  local buf = vim.api.nvim_create_buf(false, true)
  pcall(vim.api.nvim_buf_set_name, buf, 'kconfig://menu')
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].filetype = 'kconfig-menu'
  vim.cmd('topleft vsplit')
  vim.api.nvim_win_set_buf(0, buf)
  vim.wo.wrap = false
  M.state = { buf = buf, expanded = {}, show_all = false, rows = {} }
  local maps = {
    ['<CR>'] = M.enter, ['<Space>'] = M.cycle, ['/'] = function() M.search() end, ['?'] = M.why,
    gd = M.definition, a = M.toggle_all, R = M.refresh, ['<BS>'] = M.back, q = function() vim.cmd('close') end,
  }
  for lhs, fn in pairs(maps) do
    vim.keymap.set('n', lhs, fn, { buffer = buf, nowait = true, silent = true, desc = 'kconfig-ls menu' })
  end
  M.refresh()
  return buf
end

-- The server's kconfig/menuChanged: a re-load; the open menu asks again.
local pending = false
function M.on_menu_changed()
  if pending or not M.state then return end
  pending = true
  vim.defer_fn(function()
    pending = false
    M.refresh()
  end, 50)
end

return M
