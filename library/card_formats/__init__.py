"""Character cards in every format they travel in: V2/V3 JSON and PNG (`cards`,
`png`, `values`), CHARX (`charx`), Agnai's (`agnai`), a card's book
(`character_book`, `app_books`) and extensions (`extensions`); a card imported
as a character all or nothing (`card_import`) and exported (`export`)."""
