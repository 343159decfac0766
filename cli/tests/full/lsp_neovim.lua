-- Neovim (0.7 and later) as the client of `refscope lsp`: opens Keeper.java
-- of the zoo fixture, waits for the server, asks definition and references
-- (then references again after an unsaved edit of a method body, and the
-- document's symbols) and writes one line per answer to LSP_OUT.
-- Run by cli/tests/full/lsp_neovim.rs:
--   nvim --headless -u NONE -i NONE -n -c 'luafile lsp_neovim.lua'
-- with REFSCOPE, LSP_ROOT, LSP_STORE and LSP_OUT in the environment.

local root = os.getenv("LSP_ROOT")
local out = {}

local function say(line)
  table.insert(out, line)
end

-- `path:line:col` (1-based) of a location, the path relative to the root.
local function where(location)
  local path = vim.uri_to_fname(location.uri):sub(#root + 2)
  local start = location.range.start
  return string.format("%s:%d:%d", path, start.line + 1, start.character + 1)
end

local function request(bufnr, method, params)
  local responses, err = vim.lsp.buf_request_sync(bufnr, method, params, 60000)
  if not responses then
    error(method .. " got no response: " .. tostring(err))
  end
  for _, response in pairs(responses) do
    if response.error then
      error(method .. " failed: " .. vim.inspect(response.error))
    end
    return response.result
  end
end

local function references(bufnr, line, character)
  local result = request(bufnr, "textDocument/references", {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = line, character = character },
    context = { includeDeclaration = false },
  })
  local sites = {}
  for _, location in ipairs(result or {}) do
    table.insert(sites, where(location))
  end
  return table.concat(sites, " ")
end

local ok, failure = pcall(function()
  vim.cmd("edit " .. vim.fn.fnameescape(root .. "/src/main/java/com/zoo/Keeper.java"))
  local bufnr = vim.api.nvim_get_current_buf()
  local client_id = vim.lsp.start_client({
    name = "refscope",
    cmd = { os.getenv("REFSCOPE"), "lsp", "--store", os.getenv("LSP_STORE") },
    root_dir = root,
  })
  assert(client_id, "the client did not start")
  assert(vim.lsp.buf_attach_client(bufnr, client_id), "the buffer did not attach")
  local started = vim.wait(60000, function()
    local client = vim.lsp.get_client_by_id(client_id)
    return client ~= nil and client.initialized
  end, 20)
  assert(started, "the server did not initialize")
  say("encoding " .. tostring(vim.lsp.get_client_by_id(client_id).offset_encoding))

  -- `animal.eat(food);` on line 23: the cursor on `eat`.
  local definition = request(bufnr, "textDocument/definition", {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = 22, character = 17 },
  })
  if definition and definition.uri == nil then
    definition = definition[1]
  end
  say("definition " .. (definition and where(definition) or "none"))
  say("references " .. references(bufnr, 22, 17))

  -- An unsaved edit: a second call in the same body.
  vim.api.nvim_buf_set_lines(bufnr, 23, 23, false, { "        animal.eat(Food.PLANT);" })
  say("edited references " .. references(bufnr, 22, 17))

  local symbols = request(bufnr, "textDocument/documentSymbol", {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
  })
  local names = {}
  for _, symbol in ipairs(symbols[1].children or {}) do
    table.insert(names, symbol.name)
  end
  say("symbols " .. symbols[1].name .. ": " .. table.concat(names, ", "))
end)
if not ok then
  say("error " .. tostring(failure))
end

local file = assert(io.open(os.getenv("LSP_OUT"), "w"))
file:write(table.concat(out, "\n") .. "\n")
file:close()
vim.cmd("qa!")
