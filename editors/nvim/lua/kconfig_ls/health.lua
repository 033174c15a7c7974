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
  local exe = kconfig.config.cmd[1]
  if vim.fn.executable(exe) == 1 then
    local version = vim.fn.system({ exe, '--version' })
    ok('server found: ' .. exe .. ' ' .. vim.trim(version))
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
