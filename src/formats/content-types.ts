/** The media types of the two table formats (apart from the parsers, so naming them loads neither). */
export const csvContentType = 'text/csv; charset=utf-8';
export const xlsxContentType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
