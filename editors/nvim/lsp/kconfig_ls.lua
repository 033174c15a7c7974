-- Neovim 0.11+: vim.lsp.config('kconfig_ls', {...}); vim.lsp.enable('kconfig_ls')
return {
  cmd = { 'kconfig-ls', 'serve' },
  filetypes = { 'kconfig', 'kconfig-config' },
  root_dir = function(bufnr, on_dir)
    local root = require('kconfig_ls').find_root(vim.api.nvim_buf_get_name(bufnr))
    if root then on_dir(root) end
  end,
  init_options = { trusted = false },
  handlers = { ['kconfig/status'] = function(...) require('kconfig_ls').on_status(...) end },
}
