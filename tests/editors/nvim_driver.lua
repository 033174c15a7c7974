-- Driven by tests/editors/test_nvim.py: open a Kconfig file with the real
-- plugin, wait for the client, ask hover and definition, break a line and
-- wait for its diagnostic (for a break line of -1, a source file: wait for
-- the compiled-out lines the plugin highlights); write what happened as
-- JSON to $KCONFIG_LS_OUT.
local out_path = os.getenv('KCONFIG_LS_OUT')
local file = os.getenv('KCONFIG_LS_FILE')
local hover_line = tonumber(os.getenv('KCONFIG_LS_HOVER_LINE'))
local hover_col = tonumber(os.getenv('KCONFIG_LS_HOVER_COL'))
local break_line = tonumber(os.getenv('KCONFIG_LS_BREAK_LINE'))
local result = { steps = {} }

local function finish()
  local f = io.open(out_path, 'w')
  f:write(vim.fn.json_encode(result))
  f:close()
  vim.cmd('qall!')
end

local ok, err = pcall(function()
  require('kconfig_ls').setup({
    cmd = vim.fn.json_decode(os.getenv('KCONFIG_LS_CMD')),
    trusted = os.getenv('KCONFIG_LS_TRUSTED') == '1',
    settings = vim.fn.json_decode(os.getenv('KCONFIG_LS_SETTINGS') or '{}'),
  })
  vim.cmd('filetype on')  -- (as in a user's Neovim; -u NONE leaves it off)
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  result.filetype = vim.bo[bufnr].filetype
  local attached = vim.wait(60000, function()
    for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
      if c.name == 'kconfig_ls' and c.initialized then return true end
    end
    return false
  end, 50)
  result.attached = attached
  if not attached then return end

  -- Hover until the tree is loaded (the first answers may come before).
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) },
                   position = { line = hover_line, character = hover_col } }
  vim.wait(120000, function()
    local responses = vim.lsp.buf_request_sync(bufnr, 'textDocument/hover', params, 10000) or {}
    for _, r in pairs(responses) do
      if r.result and r.result.contents then
        result.hover = r.result.contents.value
        -- What Neovim's own hover handler shows: the markdown in a float.
        local lines = vim.lsp.util.convert_input_to_markdown_lines(r.result.contents)
        lines = vim.lsp.util.trim_empty_lines(lines)
        local float_buf = vim.lsp.util.open_floating_preview(lines, 'markdown', {})
        result.hover_float = vim.api.nvim_buf_get_lines(float_buf, 0, -1, false)
        return true
      end
    end
    return false
  end, 200)

  result.statusline = require('kconfig_ls').statusline()
  local responses = vim.lsp.buf_request_sync(bufnr, 'textDocument/definition', params, 10000) or {}
  result.definitions = {}
  for _, r in pairs(responses) do
    for _, loc in ipairs(r.result or {}) do
      table.insert(result.definitions, { file = vim.uri_to_fname(loc.uri), line = loc.range.start.line })
    end
  end

  -- :KconfigWhy / :KconfigHowTo on a symbol, when the test asks for it.
  local why = os.getenv('KCONFIG_LS_WHY')
  if why then
    local explained = require('kconfig_ls').why(why)
    result.why = explained and explained.text
    local how = require('kconfig_ls').how_to(why, 'y')
    result.how_to = how and how.text
    local written = require('kconfig_ls').write_config(os.getenv('KCONFIG_LS_WRITE'))
    result.write_ok = written and written.ok
    local validated = nil
    require('kconfig_ls').validate({}, function(_, r) validated = r end)
    vim.wait(60000, function() return validated ~= nil end, 50)
    result.validate_message = validated and validated.message
    vim.cmd('only')
    vim.api.nvim_set_current_buf(bufnr)
  end

  if break_line < 0 then
    -- A source file: the compiled-out lines the plugin highlights.
    result.faded_lines = {}
    vim.wait(60000, function()
      local marks = vim.api.nvim_buf_get_extmarks(bufnr, require('kconfig_ls').faded_ns, 0, -1, {})
      for _, m in ipairs(marks) do table.insert(result.faded_lines, m[2]) end
      return #marks > 0
    end, 100)
    return
  end
  local line = vim.api.nvim_buf_get_lines(bufnr, break_line, break_line + 1, false)[1]
  vim.api.nvim_buf_set_lines(bufnr, break_line, break_line + 1, false, { line .. ' && (' })
  result.diagnostic_seen = vim.wait(60000, function()
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      if d.lnum == break_line and d.severity == vim.diagnostic.severity.ERROR then
        result.diagnostic = d.message
        return true
      end
    end
    return false
  end, 100)
end)
if not ok then result.error = tostring(err) end
finish()
