-- :checkhealth kconfig_ls
local M = {}

function M.check()
  local health = vim.health or require('health')
  local start = health.start or health.report_start
  local ok = health.ok or health.report_ok
  local warn = health.warn or health.report_warn
  local error = health.error or health.report_error
  local info = health.info or health.report_info
  local kconfig = require('kconfig_ls')
  start('kconfig-ls')
  local cmd = kconfig.config.cmd
  if type(cmd) == 'string' then cmd = { cmd } end
  local exe = cmd[1]
  if vim.fn.executable(exe) == 1 then
    -- The server's own command line with --version in place of serve.
    local probe = {}
    for _, arg in ipairs(cmd) do
      if arg ~= 'serve' then table.insert(probe, arg) end
    end
    table.insert(probe, '--version')
    local said = vim.trim(vim.fn.system(probe))
    local version = said:match('^kconfig%-ls (%S+)$')
    if vim.v.shell_error ~= 0 or not version then
      error('server does not answer --version: ' .. table.concat(probe, ' ') .. ': ' .. said,
        { 'check cmd in setup(); the server is installed by scripts/setup or pip install kconfig-ls' })
    elseif version ~= kconfig.version then
      warn('server ' .. exe .. ' is kconfig-ls ' .. version .. ', the plugin is ' .. kconfig.version,
        { 'use the server and plugin of one release (update the plugin or the server)' })
    else
      ok('server found: ' .. exe .. ' (kconfig-ls ' .. version .. ', same as the plugin)')
    end
  else
    error('server not found: ' .. exe, { 'pip install kconfig-ls, or set cmd in setup()' })
  end
  local root = kconfig.find_root(vim.api.nvim_buf_get_name(0))
  if root then info('tree root: ' .. root) else warn('no Kconfig tree above the current buffer') end
  if kconfig.config.trusted then
    info('trusted: $(shell,...) in Kconfig files runs')
  else
    info('not trusted: $(shell,...) expands to nothing (set trusted = true to change)')
  end
end

return M
