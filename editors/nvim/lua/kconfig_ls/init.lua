-- kconfig-ls for Neovim: filetypes, starting the language server, user commands.
-- Works on Neovim 0.7 (vim.lsp.start_client / buf_attach_client) and newer;
-- on 0.11+ lsp/kconfig_ls.lua also serves vim.lsp.config/vim.lsp.enable.
local M = {}

-- The plugin's version; :checkhealth warns when the server's differs.
M.version = '0.1.0'

M.defaults = {
  -- How to start the server: an executable or a full command line.
  cmd = { 'kconfig-ls', 'serve' },
  -- Passed as initializationOptions (see the server's settings).
  settings = { arch = nil, configFile = nil, trustedRoots = {} },
  -- Whether this Neovim trusts the trees it opens ($(shell,...) runs only then).
  trusted = false,
  -- Buffer-local K (hover), gd (definition), gr (references) where the
  -- buffer has no mapping of its own; Neovim before 0.10 has none by default.
  keymaps = true,
  -- Also attach to the tree's C, assembly, device-tree and make buffers:
  -- hover and definition on CONFIG_ symbols, and the lines the
  -- configuration compiles out drawn with the KconfigCompiledOut highlight
  -- (linked to Comment).  Only these: the language's own server does the rest.
  source_files = true,
}

-- The filetypes of such buffers.
M.source_filetypes = { 'c', 'cpp', 'asm', 'dts', 'make', 'kbuild', 'ld', 'rust', 'rst' }
-- Where the compiled-out lines are highlighted.
M.faded_ns = vim.api.nvim_create_namespace('kconfig_ls_faded')

M.config = vim.deepcopy(M.defaults)
M.clients = {} -- root_dir -> client id

local function is_kconfig_name(name)
  local base = vim.fn.fnamemodify(name, ':t')
  return base:match('^Kconfig') ~= nil or base == 'Config.in' or base:match('%.kconfig$') ~= nil
end

local function is_config_name(name)
  local base = vim.fn.fnamemodify(name, ':t')
  return base == '.config' or base:match('defconfig$') ~= nil
    or (base:match('%.config$') ~= nil and (name:match('/kernel/configs/') or name:match('/arch/[^/]+/configs/')))
end

M.is_kconfig_name = is_kconfig_name
M.is_config_name = is_config_name

-- The tree root: the nearest ancestor with a top-level Kconfig; a kernel tree
-- (one with arch/) wins over a subdirectory's Kconfig.
function M.find_root(path)
  local dir = vim.fn.fnamemodify(path, ':p:h')
  local found = nil
  while dir and dir ~= '' do
    if vim.fn.filereadable(dir .. '/Kconfig') == 1 or vim.fn.filereadable(dir .. '/Config.in') == 1 then
      found = dir
      if vim.fn.isdirectory(dir .. '/arch') == 1 and vim.fn.filereadable(dir .. '/Kconfig') == 1 then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then break end
    dir = parent
  end
  return found
end

local function init_options()
  local options = vim.deepcopy(M.config.settings)
  options.trusted = M.config.trusted
  return options
end

-- What the server last said it has loaded (its kconfig/status
-- notification, sent after every load), per tree root.
M.status = {}

function M.on_status(_, status, ctx)
  local client = ctx and vim.lsp.get_client_by_id(ctx.client_id)
  local root = client and client.config.root_dir or (status and status.root)
  if root then M.status[root] = status end
end

-- For 'statusline': "Kconfig: x86_64 · .config" for the current buffer's
-- tree, or '' when none is loaded.
function M.statusline()
  local root = M.find_root(vim.api.nvim_buf_get_name(0))
  local status = root and M.status[root]
  if not status or not status.loaded then return '' end
  local arch = (status.arch and status.arch ~= vim.NIL) and (status.arch .. ' · ') or ''
  local file = vim.fn.fnamemodify(status.configFile or '.config', ':t')
  return 'Kconfig: ' .. arch .. file .. (status.configExists == false and ' (defaults)' or '')
end

-- Published diagnostics as usual, then the lines of those tagged
-- "unnecessary" (compiled out) highlighted: Neovim before 0.10 does not
-- draw that tag itself.
function M.on_diagnostics(err, result, ctx, config)
  vim.lsp.handlers['textDocument/publishDiagnostics'](err, result, ctx, config)
  local bufnr = result and vim.uri_to_bufnr(result.uri)
  if not bufnr or not vim.api.nvim_buf_is_loaded(bufnr) then return end
  vim.api.nvim_buf_clear_namespace(bufnr, M.faded_ns, 0, -1)
  local count = vim.api.nvim_buf_line_count(bufnr)
  for _, d in ipairs(result.diagnostics or {}) do
    if d.tags and vim.tbl_contains(d.tags, 1) then
      local last = d.range['end'].line
      if d.range['end'].character == 0 then last = last - 1 end
      for line = d.range.start.line, math.min(last, count - 1) do
        vim.api.nvim_buf_add_highlight(bufnr, M.faded_ns, 'KconfigCompiledOut', line, 0, -1)
      end
    end
  end
end

function M.attach(bufnr, source)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local name = vim.api.nvim_buf_get_name(bufnr)
  local root = M.find_root(name)
  if not root then return nil end
  local id = M.clients[root]
  if id == nil or vim.lsp.get_client_by_id(id) == nil then
    id = vim.lsp.start_client({
      name = 'kconfig_ls',
      cmd = M.config.cmd,
      root_dir = root,
      init_options = init_options(),
      workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
      handlers = { ['kconfig/status'] = M.on_status, ['textDocument/publishDiagnostics'] = M.on_diagnostics,
                   ['kconfig/menuChanged'] = function() require('kconfig_ls.menu').on_menu_changed() end },
    })
    M.clients[root] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
    if M.config.keymaps and not source then
      for lhs, fn in pairs({ K = 'hover', gd = 'definition', gr = 'references' }) do
        if vim.fn.maparg(lhs, 'n') == '' then
          vim.api.nvim_buf_set_keymap(bufnr, 'n', lhs, '<cmd>lua vim.lsp.buf.' .. fn .. '()<CR>',
            { noremap = true, silent = true, desc = 'kconfig-ls ' .. fn })
        end
      end
    end
  end
  return id
end

-- The buffer's kconfig_ls client, else any running one (e.g. when the
-- cursor is in an explanation window).
local function client_for(bufnr)
  for _, client in pairs(vim.lsp.buf_get_clients(bufnr or 0)) do
    if client.name == 'kconfig_ls' then return client end
  end
  for _, client in pairs(vim.lsp.get_active_clients()) do
    if client.name == 'kconfig_ls' then return client end
  end
  return nil
end

M.client = client_for

function M.execute(command, arguments, bufnr)
  local client = client_for(bufnr)
  if not client then
    vim.notify('kconfig-ls is not attached to this buffer', vim.log.levels.WARN)
    return nil
  end
  local response = client.request_sync('workspace/executeCommand',
    { command = command, arguments = arguments or {} }, 120000, bufnr or 0)
  if response and response.err then
    vim.notify('kconfig-ls: ' .. (response.err.message or vim.inspect(response.err)), vim.log.levels.ERROR)
    return nil
  end
  return response and response.result
end

-- The symbol under the cursor (CONFIG_ prefix dropped), or the given name.
local function symbol_arg(name)
  if name == nil or name == '' then name = vim.fn.expand('<cword>') end
  return (name:gsub('^CONFIG_', ''))
end

-- Show text in a scratch window below (q closes it); returns the buffer.
function M.show(title, text)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, '\n', { trimempty = true }))
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].filetype = 'kconfig-explain'
  pcall(vim.api.nvim_buf_set_name, buf, title)
  vim.cmd('botright split')
  vim.api.nvim_win_set_buf(0, buf)
  vim.api.nvim_buf_set_keymap(buf, 'n', 'q', '<cmd>close<cr>', { noremap = true, silent = true })
  return buf
end

-- Why the symbol has its value (the server's kconfig.explain).
function M.why(name)
  local result = M.execute('kconfig.explain', { symbol_arg(name) })
  if not result then return nil end
  M.show('kconfig-why://' .. symbol_arg(name), result.text)
  return result
end

-- What to set so that the symbol gets `target` (default y); with apply,
-- the verified assignments are written into the config file's buffer.
function M.how_to(name, target, apply)
  local args = { symbol_arg(name), target or 'y' }
  local result = M.execute(apply and 'kconfig.applyHowTo' or 'kconfig.howTo', args)
  if not result then return nil end
  if apply then
    local r = result.result
    if result.applied then
      vim.notify('kconfig-ls: ' .. result.title)
    elseif r.already then
      vim.notify('kconfig-ls: CONFIG_' .. r.symbol .. ' is already ' .. r.target)
    else
      vim.notify('kconfig-ls: no change applied: ' .. (r.reason ~= '' and r.reason or 'nothing to do'),
        vim.log.levels.WARN)
    end
  else
    M.show('kconfig-howto://' .. args[1], result.text)
  end
  return result
end

-- Write the configuration the server shows (default: the tree's config).
function M.write_config(path)
  local result = M.execute('kconfig.writeConfig', { { path = (path ~= '' and path) or nil } })
  if result then
    vim.notify('kconfig-ls: ' .. result.message, result.ok and vim.log.levels.INFO or vim.log.levels.ERROR)
  end
  return result
end

-- Build and boot the shown configuration in QEMU (asynchronous: the result
-- is shown when it arrives; progress appears as LSP progress messages).
function M.validate(opts, callback)
  local client = client_for(0)
  if not client then
    vim.notify('kconfig-ls is not attached to this buffer', vim.log.levels.WARN)
    return
  end
  opts = opts or {}
  client.request('workspace/executeCommand', { command = 'kconfig.validate', arguments = { opts } },
    function(err, result)
      if err then
        vim.notify('kconfig-ls: validate: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      else
        local text = (result.ok and 'OK: ' or ('FAILED (' .. result.stage .. '): ')) .. result.message
        if not result.ok and result.log_tail and result.log_tail ~= '' then
          M.show('kconfig-validate://result', text .. '\n\n' .. result.log_tail)
        end
        vim.notify('kconfig-ls: ' .. text, result.ok and vim.log.levels.INFO or vim.log.levels.ERROR)
      end
      if callback then callback(err, result) end
    end, 0)
end

local function define_commands()
  vim.api.nvim_create_user_command('KconfigWriteConfig', function(opts)
    M.write_config(opts.args)
  end, { nargs = '?', complete = 'file', desc = 'Write the shown configuration (default: the tree config file)' })
  vim.api.nvim_create_user_command('KconfigValidate', function(opts)
    M.validate({ boot = not opts.bang, addBootEssentials = opts.args == 'essentials' })
  end, { nargs = '?', bang = true,
         desc = 'Build (and, without !, boot in QEMU) the shown configuration; "essentials" adds what a boot needs' })
  vim.api.nvim_create_user_command('KconfigWhy', function(opts)
    M.why(opts.args)
  end, { nargs = '?', desc = 'Explain why a symbol (default: under the cursor) has its value' })
  vim.api.nvim_create_user_command('KconfigHowTo', function(opts)
    local name, target = opts.fargs[1], opts.fargs[2]
    if #opts.fargs == 1 and opts.fargs[1]:match('^[ymn]$') then name, target = nil, opts.fargs[1] end
    M.how_to(name, target, opts.bang)
  end, { nargs = '*', bang = true,
         desc = 'Assignments that give a symbol a value: [SYMBOL] [VALUE]; ! applies them to the config' })
  vim.api.nvim_create_user_command('KconfigArch', function(opts)
    local arch = M.execute('kconfig.setArch', { opts.args })
    if arch then vim.notify('kconfig-ls: ARCH=' .. arch) end
  end, { nargs = 1, desc = 'Load the Kconfig tree for another architecture' })
  vim.api.nvim_create_user_command('KconfigMenu', function(opts)
    local menu = require('kconfig_ls.menu')
    menu.open()
    if opts.args ~= '' then menu.search(opts.args) end
  end, { nargs = '?', desc = "The kernel's menu, as menuconfig shows it (optionally searching)" })
  vim.api.nvim_create_user_command('KconfigSet', function(opts)
    require('kconfig_ls.menu').set_value(symbol_arg(opts.fargs[1]), opts.fargs[2] or 'y')
  end, { nargs = '+', desc = 'Set a symbol in the config file as menuconfig would: SYMBOL [VALUE]' })
  vim.api.nvim_create_user_command('KconfigReload', function()
    M.execute('kconfig.reload', {})
  end, { desc = 'Reload the Kconfig tree' })
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts or {})
  if vim.filetype and vim.filetype.add then
    vim.filetype.add({
      filename = { ['Config.in'] = 'kconfig', ['.config'] = 'kconfig-config', ['defconfig'] = 'kconfig-config' },
      pattern = {
        ['Kconfig.*'] = 'kconfig',
        ['.*%.kconfig'] = 'kconfig',
        ['.*_defconfig'] = 'kconfig-config',
        ['.*/kernel/configs/.*%.config'] = 'kconfig-config',
        ['.*/arch/[^/]+/configs/.*%.config'] = 'kconfig-config',
      },
    })
  end
  local group = vim.api.nvim_create_augroup('kconfig_ls', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
    group = group,
    callback = function(args)
      local name = vim.api.nvim_buf_get_name(args.buf)
      if is_kconfig_name(name) then
        vim.bo[args.buf].filetype = 'kconfig'
      elseif is_config_name(name) then
        vim.bo[args.buf].filetype = 'kconfig-config'
      end
    end,
  })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = { 'kconfig', 'kconfig-config' },
    callback = function(args) M.attach(args.buf) end,
  })
  vim.api.nvim_set_hl(0, 'KconfigCompiledOut', { link = 'Comment', default = true })
  if M.config.source_files then
    vim.api.nvim_create_autocmd('FileType', {
      group = group,
      pattern = M.source_filetypes,
      callback = function(args)
        -- (Only a file inside a Kconfig tree; no server starts for others.)
        if M.find_root(vim.api.nvim_buf_get_name(args.buf)) then M.attach(args.buf, true) end
      end,
    })
  end
  define_commands()
end

return M
