-- Neovim 0.11+: vim.lsp.config('kconfig_ls', {...}); vim.lsp.enable('kconfig_ls')
-- The source filetypes (C, assembly, device trees, make) get hover and
-- definition on CONFIG_ symbols and faded compiled-out lines (Neovim 0.11
-- draws the "unnecessary" tag itself); drop them from filetypes to opt out.
return {
  cmd = { 'kconfig-ls', 'serve' },
  filetypes = { 'kconfig', 'kconfig-config', 'c', 'cpp', 'asm', 'dts', 'make', 'kbuild', 'ld', 'rust', 'rst' },
  root_dir = function(bufnr, on_dir)
    local root = require('kconfig_ls').find_root(vim.api.nvim_buf_get_name(bufnr))
    if root then on_dir(root) end
  end,
  init_options = { trusted = false },
  handlers = { ['kconfig/status'] = function(...) require('kconfig_ls').on_status(...) end },
}
