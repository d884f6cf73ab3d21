// Internal to schema.cc: the tokenizer of schema text. Not part of the
// op library's interface.
#ifndef SWITCHYARD_DISPATCHER_OPS_SCHEMA_LEXER_H_
#define SWITCHYARD_DISPATCHER_OPS_SCHEMA_LEXER_H_

#include <string>
#include <string_view>
#include <vector>

namespace sy::core::schema_internal {

enum class TokenKind {
  kIdent,   // [A-Za-z_][A-Za-z0-9_]*
  kInt,     // -?[0-9]+
  kFloat,   // -?[0-9]+ with a fraction and/or an exponent
  kString,  // "…" or '…'; `text` keeps the quotes, `value` the content
  kPunct,   // ( ) [ ] , = ? . -> ::
  kEnd,     // end of the text
  kBad,     // text that starts no token; the parser reports it as found
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string_view text;  // as written, a view into the schema text
  int column = 1;         // 1-based byte column of the first character
  std::string value;      // kString: the unescaped content
  std::string note;       // kBad: why it is not a token, or ""
};

// Splits `text` into tokens. Never fails: the result always ends with one
// kEnd token, and a stretch that is no token becomes a kBad token, so the
// parser reports the first problem in reading order with what it expected
// there. `text` must outlive the tokens.
std::vector<Token> Tokenize(std::string_view text);

}  // namespace sy::core::schema_internal

#endif  // SWITCHYARD_DISPATCHER_OPS_SCHEMA_LEXER_H_
